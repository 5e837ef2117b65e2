// Season templates: the seasons a farm grows again and again. Everyone sees them; owners add and
// delete them and start a season from one. Templates cannot be changed (the API has no update).
import { Link } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { Field, type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { ErrorState, Loading } from '../../ui/States';
import { type Template, useCreateTemplate, useCrops, useDeleteTemplate, useTemplates } from './api';
import { texts } from './texts';

const FIELDS = ['name', 'crop_id', 'description'] as const;
type FieldName = (typeof FIELDS)[number];

export function TemplatesPanel({ owner }: { owner: boolean }) {
  const { t } = useTexts(texts);
  const templates = useTemplates();
  const remove = useDeleteTemplate();
  const announce = useAnnounce();
  const [deleting, setDeleting] = useState<Template | null>(null);
  const titleRef = useRef<HTMLHeadingElement>(null);

  function confirmDelete() {
    if (!deleting) return;
    const { id, name } = deleting;
    remove.mutate(id, {
      onSuccess: () => {
        announce(t('templates.deleted', { name }));
        setDeleting(null);
      },
      onError: (err) => {
        announce(err.message, 'error');
        setDeleting(null);
      },
    });
  }

  return (
    <section className="panel templates-panel" aria-labelledby="templates-title">
      <h2 id="templates-title" ref={titleRef} tabIndex={-1}>
        {t('templates.title')}
      </h2>
      <p className="hint">{t('templates.intro')}</p>
      {templates.isPending && <Loading label={t('templates.loading')} />}
      {templates.isError && <ErrorState error={templates.error} onRetry={() => void templates.refetch()} />}
      {templates.data?.length === 0 && (
        <p className="empty-inline">{t(owner ? 'templates.empty_owner' : 'templates.empty')}</p>
      )}
      {templates.data && templates.data.length > 0 && (
        <ul className="template-list" aria-label={t('templates.list_label')}>
          {templates.data.map((template) => (
            <li key={template.id} className="template-item">
              <div className="template-text">
                <span className="template-name">{template.name}</span>
                <span className="muted">{t('templates.crop', { crop: template.crop?.name ?? '—' })}</span>
                {template.description && <span className="template-description">{template.description}</span>}
              </div>
              {owner && (
                <div className="template-actions">
                  <Link
                    className="button small secondary"
                    to="/seasons/new"
                    search={{ template: template.id }}
                    aria-label={t('templates.use_label', { name: template.name })}
                  >
                    {t('templates.use')}
                  </Link>
                  <button
                    type="button"
                    className="button small danger-outline"
                    aria-label={t('templates.delete_label', { name: template.name })}
                    onClick={() => setDeleting(template)}
                  >
                    {t('templates.delete')}
                  </button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {owner && <TemplateForm />}
      {deleting && (
        <ConfirmDialog
          title={t('templates.delete_title', { name: deleting.name })}
          confirmLabel={t('templates.delete')}
          tone="danger"
          busy={remove.isPending}
          onConfirm={confirmDelete}
          onCancel={() => setDeleting(null)}
          fallbackFocus={titleRef}
        >
          <p>{t('templates.delete_body')}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function TemplateForm() {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const crops = useCrops();
  const create = useCreateTemplate();
  const [name, setName] = useState('');
  const [cropId, setCropId] = useState('');
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);
  const nameRef = useRef<HTMLInputElement>(null);
  const cropRef = useRef<HTMLSelectElement>(null);
  const summaryRef = useRef<HTMLDivElement>(null);

  function showErrors(next: FormErrors<FieldName>) {
    setErrors(next);
    requestAnimationFrame(() => {
      if (next.fields.name) nameRef.current?.focus();
      else if (next.fields.crop_id) cropRef.current?.focus();
      else summaryRef.current?.focus();
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (create.isPending) return;
    setErrors(noErrors());
    create.mutate(
      {
        name: name.trim(),
        crop_id: cropId === '' ? null : Number(cropId),
        description: description.trim() || null,
      },
      {
        onSuccess: (template) => {
          announce(t('templates.added', { name: template.name }));
          setName('');
          setDescription('');
          nameRef.current?.focus();
        },
        onError: (err) => {
          if (err instanceof SessionExpiredError) return;
          const next = formErrors(err, FIELDS, t);
          // The API checks the crop after the other fields: say it at once, in the form's words.
          if (cropId === '') next.fields.crop_id = t('form.crop_required');
          showErrors(next);
        },
      },
    );
  }

  return (
    <form
      className="settings template-form"
      onSubmit={submit}
      noValidate
      aria-labelledby="template-form-title"
    >
      <h3 id="template-form-title">{t('templates.add_title')}</h3>
      {errors.general.length > 0 && (
        <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef}>
          {errors.general.map((message) => (
            <p key={message}>{message}</p>
          ))}
        </div>
      )}
      <div className="form-grid">
        <Field id="template-name" label={t('templates.name')} error={errors.fields.name}>
          {(control) => (
            <input
              {...control}
              ref={nameRef}
              name="name"
              maxLength={255}
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
          )}
        </Field>
        <Field id="template-crop" label={t('form.crop')} error={errors.fields.crop_id}>
          {(control) => (
            <select
              {...control}
              ref={cropRef}
              name="crop_id"
              value={cropId}
              onChange={(event) => setCropId(event.target.value)}
            >
              <option value="">{t('form.crop_pick')}</option>
              {crops.data?.map((crop) => (
                <option key={crop.id} value={crop.id}>
                  {crop.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Field id="template-description" label={t('templates.description')} error={errors.fields.description}>
        {(control) => (
          <input
            {...control}
            name="description"
            value={description}
            onChange={(event) => setDescription(event.target.value)}
          />
        )}
      </Field>
      <button type="submit" className="button primary" aria-disabled={create.isPending || undefined}>
        {create.isPending ? t('form.saving') : t('templates.add')}
      </button>
    </form>
  );
}
