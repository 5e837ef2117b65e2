// Add a farm (/fields/new) or change one (/fields/:farmId/edit). The API checks the fields; its
// reasons are shown in plain words next to each field, what was typed stays, and the focus goes
// to the first thing to fix. Staff are told that only owners change farms.
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { Field, type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import { type Farm, useFarm, useSaveFarm } from './api';
import { OwnerOnlyForm, useIsOwner } from './parts';
import { texts } from './texts';

const FIELDS = ['name', 'address', 'surface', 'ownership', 'lat', 'lng', 'description'] as const;
type FieldName = (typeof FIELDS)[number];

export default function FarmFormPage() {
  const { farmId } = useParams({ strict: false }) as { farmId?: string };
  const { t } = useTexts(texts);
  const owner = useIsOwner();
  const editing = farmId !== undefined;
  const title = t(editing ? 'form.farm_edit_title' : 'form.farm_add_title');
  const farm = useFarm(Number(farmId), { active: owner && editing });

  if (!owner) return <OwnerOnlyForm title={title} />;
  if (!editing) return <FarmForm farm={null} />;
  if (!farm.data) {
    return (
      <section className="page narrow">
        <PageHeading>{title}</PageHeading>
        {farm.isError ? (
          <ErrorState error={farm.error} notFound={t('farm.not_found')} onRetry={() => void farm.refetch()} />
        ) : (
          <Loading label={t('farm.loading')} />
        )}
      </section>
    );
  }
  return <FarmForm key={farm.data.id} farm={farm.data} />;
}

function FarmForm({ farm }: { farm: Farm | null }) {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const save = useSaveFarm(farm?.id ?? null);
  const [values, setValues] = useState<Record<FieldName, string>>(() => ({
    name: farm?.name ?? '',
    address: farm?.address ?? '',
    surface: farm?.surface ?? '',
    ownership: farm?.ownership ?? '',
    lat: farm?.lat ?? '',
    lng: farm?.lng ?? '',
    description: farm?.description ?? '',
  }));
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);
  const formRef = useRef<HTMLFormElement>(null);
  const summaryRef = useRef<HTMLDivElement>(null);

  function showErrors(next: FormErrors<FieldName>) {
    setErrors(next);
    // The first field to fix takes the focus, once the errors are on the page.
    requestAnimationFrame(() => {
      const first = FIELDS.find((field) => next.fields[field]);
      if (first) formRef.current?.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
      else summaryRef.current?.focus();
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (save.isPending) return;
    setErrors(noErrors());
    const input = {
      name: values.name.trim(),
      address: values.address.trim(),
      surface: values.surface.trim(),
      ownership: values.ownership.trim(),
      lat: values.lat.trim(),
      lng: values.lng.trim(),
      description: values.description.trim(),
    };
    save.mutate(input, {
      onSuccess: (saved) => {
        announce(farm ? t('form.saved') : t('farm.added', { name: saved.name }));
        void navigate({ to: '/fields/$farmId', params: { farmId: String(saved.id) } });
      },
      onError: (err) => {
        if (!(err instanceof SessionExpiredError)) showErrors(formErrors(err, FIELDS, t));
      },
    });
  }

  const set = (field: FieldName) => (event: { target: { value: string } }) =>
    setValues((now) => ({ ...now, [field]: event.target.value }));
  const hasFieldErrors = Object.keys(errors.fields).length > 0;

  return (
    <section className="page narrow fields-form">
      {farm ? (
        <Link className="back" to="/fields/$farmId" params={{ farmId: String(farm.id) }}>
          ← {farm.name}
        </Link>
      ) : (
        <Link className="back" to="/fields">
          ← {t('farm.back')}
        </Link>
      )}
      <PageHeading>{t(farm ? 'form.farm_edit_title' : 'form.farm_add_title')}</PageHeading>
      <form ref={formRef} onSubmit={submit} noValidate>
        {(errors.general.length > 0 || hasFieldErrors) && (
          <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef}>
            {errors.general.length > 0 ? (
              errors.general.map((message) => <p key={message}>{message}</p>)
            ) : (
              <p>{t('error.fix_fields')}</p>
            )}
          </div>
        )}
        <Field
          id="farm-name"
          label={t('form.name')}
          hint={t('form.name_hint_farm')}
          error={errors.fields.name}
        >
          {(control) => (
            <input
              {...control}
              name="name"
              required
              autoComplete="off"
              value={values.name}
              onChange={set('name')}
            />
          )}
        </Field>
        <Field id="farm-address" label={t('form.address')} error={errors.fields.address}>
          {(control) => (
            <input
              {...control}
              name="address"
              autoComplete="off"
              value={values.address}
              onChange={set('address')}
            />
          )}
        </Field>
        <div className="field-pair">
          <Field
            id="farm-surface"
            label={t('form.surface')}
            hint={t('form.surface_hint')}
            error={errors.fields.surface}
          >
            {(control) => (
              <input {...control} name="surface" value={values.surface} onChange={set('surface')} />
            )}
          </Field>
          <Field
            id="farm-ownership"
            label={t('form.ownership')}
            hint={t('form.ownership_hint')}
            error={errors.fields.ownership}
          >
            {(control) => (
              <input {...control} name="ownership" value={values.ownership} onChange={set('ownership')} />
            )}
          </Field>
        </div>
        <div className="field-pair">
          <Field
            id="farm-lat"
            label={t('form.lat')}
            hint={t('form.coordinates_hint')}
            error={errors.fields.lat}
          >
            {(control) => (
              <input {...control} name="lat" inputMode="decimal" value={values.lat} onChange={set('lat')} />
            )}
          </Field>
          <Field
            id="farm-lng"
            label={t('form.lng')}
            hint={t('form.coordinates_hint')}
            error={errors.fields.lng}
          >
            {(control) => (
              <input {...control} name="lng" inputMode="decimal" value={values.lng} onChange={set('lng')} />
            )}
          </Field>
        </div>
        <Field id="farm-description" label={t('form.notes')} error={errors.fields.description}>
          {(control) => (
            <textarea
              {...control}
              name="description"
              rows={4}
              value={values.description}
              onChange={set('description')}
            />
          )}
        </Field>
        <div className="form-actions">
          <button type="submit" className="button primary" aria-disabled={save.isPending || undefined}>
            {save.isPending ? t('form.saving') : t(farm ? 'form.save' : 'form.add_farm')}
          </button>
          {farm ? (
            <Link className="button secondary" to="/fields/$farmId" params={{ farmId: String(farm.id) }}>
              {t('form.cancel')}
            </Link>
          ) : (
            <Link className="button secondary" to="/fields">
              {t('form.cancel')}
            </Link>
          )}
        </div>
      </form>
    </section>
  );
}
