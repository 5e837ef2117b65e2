// The stages of the farm's work (land preparation, planting, care, harvest…): the diary groups and
// filters tasks by them. Owners add and delete them; staff are not offered this page.
import { Link } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { Field, type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import {
  useAddStage,
  useAddSubstage,
  useDeleteStage,
  useDeleteSubstage,
  useStages,
  useSubstages,
} from './api';
import { lastDiarySearch } from './nav';
import { useTaskRights } from './TaskParts';
import { texts } from './texts';

const FIELDS = ['name'] as const;

export default function StagesPage() {
  const { t } = useTexts(texts);
  const { owner } = useTaskRights();
  const stages = useStages();
  const add = useAddStage();
  const remove = useDeleteStage();
  const substages = useSubstages();
  const removeSub = useDeleteSubstage();
  const announce = useAnnounce();
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<FormErrors<'name'>>(noErrors);
  const [deleting, setDeleting] = useState<{ kind: 'stage' | 'sub'; id: number; name: string } | null>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  const summaryRef = useRef<HTMLDivElement>(null);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (add.isPending) return;
    setErrors(noErrors());
    add.mutate(name.trim(), {
      onSuccess: (stage) => {
        announce(t('stages.added', { name: stage.name }));
        setName('');
        nameRef.current?.focus();
      },
      onError: (err) => {
        if (err instanceof SessionExpiredError) return;
        const next = formErrors(err, FIELDS, t);
        setErrors(next);
        requestAnimationFrame(() => (next.fields.name ? nameRef.current : summaryRef.current)?.focus());
      },
    });
  }

  function confirmDelete() {
    if (!deleting) return;
    const { kind, id, name: deletedName } = deleting;
    (kind === 'stage' ? remove : removeSub).mutate(id, {
      onSuccess: () => {
        announce(t(kind === 'stage' ? 'stages.deleted' : 'stages.sub_deleted', { name: deletedName }));
        setDeleting(null);
      },
      onError: (err) => {
        announce(err.message, 'error');
        setDeleting(null);
      },
    });
  }

  return (
    <section className="page narrow stages-page">
      <Link className="back" to="/diary" search={lastDiarySearch() as Record<string, unknown>}>
        ← {t('form.back')}
      </Link>
      <PageHeading>{t('stages.title')}</PageHeading>
      <p className="lead">{t('stages.intro')}</p>
      {!owner ? (
        <p className="notice notice-info">{t('stages.owner_only')}</p>
      ) : (
        <>
          {stages.isPending && <Loading label={t('stages.loading')} />}
          {stages.isError && <ErrorState error={stages.error} onRetry={() => void stages.refetch()} />}
          {stages.data?.length === 0 && <p className="empty-inline">{t('stages.empty')}</p>}
          {stages.data && stages.data.length > 0 && (
            <ul className="stage-list" aria-label={t('stages.title')}>
              {stages.data.map((stage) => {
                const subs = (substages.data ?? []).filter((x) => x.category_task_id === stage.id);
                return (
                  <li key={stage.id} className="stage-item">
                    <div className="stage-row">
                      <span className="stage-name">{stage.name}</span>
                      <button
                        type="button"
                        className="button small danger-outline"
                        aria-label={t('task.delete_label', { name: stage.name })}
                        onClick={() => setDeleting({ kind: 'stage', id: stage.id, name: stage.name })}
                      >
                        {t('task.delete')}
                      </button>
                    </div>
                    {subs.length > 0 && (
                      <ul className="substage-list" aria-label={t('stages.subs', { name: stage.name })}>
                        {subs.map((sub) => (
                          <li key={sub.id} className="stage-row">
                            <span>{sub.name}</span>
                            <button
                              type="button"
                              className="button small danger-outline"
                              aria-label={t('task.delete_label', { name: sub.name })}
                              onClick={() => setDeleting({ kind: 'sub', id: sub.id, name: sub.name })}
                            >
                              {t('task.delete')}
                            </button>
                          </li>
                        ))}
                      </ul>
                    )}
                  </li>
                );
              })}
            </ul>
          )}
          <form
            className="settings stage-form"
            onSubmit={submit}
            noValidate
            aria-labelledby="stage-form-title"
          >
            <h2 id="stage-form-title">{t('stages.add_title')}</h2>
            {errors.general.length > 0 && (
              <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef}>
                {errors.general.map((message) => (
                  <p key={message}>{message}</p>
                ))}
              </div>
            )}
            <Field
              id="stage-name"
              label={t('stages.name')}
              hint={t('stages.name_hint')}
              error={errors.fields.name}
            >
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
            <button type="submit" className="button primary" aria-disabled={add.isPending || undefined}>
              {add.isPending ? t('form.saving') : t('stages.add')}
            </button>
          </form>
          {stages.data && stages.data.length > 0 && <SubstageForm stages={stages.data} />}
        </>
      )}
      {deleting && (
        <ConfirmDialog
          title={t(deleting.kind === 'stage' ? 'stages.delete_title' : 'stages.sub_delete_title', {
            name: deleting.name,
          })}
          confirmLabel={t('task.delete')}
          tone="danger"
          busy={remove.isPending || removeSub.isPending}
          onConfirm={confirmDelete}
          onCancel={() => setDeleting(null)}
        >
          <p>{t('stages.delete_body')}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function SubstageForm({ stages }: { stages: { id: number; name: string }[] }) {
  const { t } = useTexts(texts);
  const add = useAddSubstage();
  const announce = useAnnounce();
  const [stageId, setStageId] = useState(String(stages[0]?.id ?? ''));
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<FormErrors<'name' | 'category_task_id'>>(noErrors);
  const nameRef = useRef<HTMLInputElement>(null);
  const summaryRef = useRef<HTMLDivElement>(null);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (add.isPending) return;
    setErrors(noErrors());
    add.mutate(
      { name: name.trim(), category_task_id: Number(stageId) },
      {
        onSuccess: (sub) => {
          const stage = stages.find((x) => x.id === sub.category_task_id)?.name ?? '';
          announce(t('stages.sub_added', { name: sub.name, stage }));
          setName('');
          nameRef.current?.focus();
        },
        onError: (err) => {
          if (err instanceof SessionExpiredError) return;
          const next = formErrors(err, ['name', 'category_task_id'] as const, t);
          setErrors(next);
          requestAnimationFrame(() => (next.fields.name ? nameRef.current : summaryRef.current)?.focus());
        },
      },
    );
  }

  return (
    <form className="settings stage-form" onSubmit={submit} noValidate aria-labelledby="substage-form-title">
      <h2 id="substage-form-title">{t('stages.sub_add_title')}</h2>
      {(errors.general.length > 0 || errors.fields.category_task_id) && (
        <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef}>
          {[...errors.general, errors.fields.category_task_id].filter(Boolean).map((message) => (
            <p key={message}>{message}</p>
          ))}
        </div>
      )}
      <div className="form-grid">
        <div className="field">
          <label htmlFor="substage-stage">{t('stages.sub_stage')}</label>
          <select id="substage-stage" value={stageId} onChange={(event) => setStageId(event.target.value)}>
            {stages.map((stage) => (
              <option key={stage.id} value={stage.id}>
                {stage.name}
              </option>
            ))}
          </select>
        </div>
        <Field
          id="substage-name"
          label={t('stages.sub_name')}
          hint={t('stages.sub_name_hint')}
          error={errors.fields.name}
        >
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
      </div>
      <button type="submit" className="button primary" aria-disabled={add.isPending || undefined}>
        {add.isPending ? t('form.saving') : t('stages.sub_add')}
      </button>
    </form>
  );
}
