// Record a harvest batch (anyone, usually staff on a phone in the field): parcel, crop, weight,
// when, notes. What was typed is sent as it is; the API's reasons are shown next to their field
// and the focus goes to the first thing to fix. The owner confirms the batch later.
import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { Field, type FormErrors, noErrors } from '../../ui/Field';
import { type OwnRule, ownFormErrors } from '../../ui/field-rules';
import { formatNumber } from '../../ui/format';
import { PageHeading } from '../../ui/PageHeading';
import { Empty, ErrorState, Loading } from '../../ui/States';
import { type BatchInput, useCropTypes, useDeclareBatch, useParcels } from './api';
import { texts } from './texts';

const FIELDS = ['parcel_id', 'crop_type_id', 'quantity_kg', 'harvested_at', 'notes'] as const;
type FieldName = (typeof FIELDS)[number];

type Key = keyof (typeof texts)['en'];
const RULES: readonly OwnRule<Key>[] = [
  {
    field: 'quantity_kg',
    match: [/^must be greater than/, /^phải lớn hơn/, /^must be at least/, /^phải lớn hơn hoặc bằng/],
    text: 'fielderror.weight_positive',
  },
  {
    field: 'quantity_kg',
    match: [/^must be (a |an )?(number|integer)/, /^phải là .*(number|integer|số)/],
    text: 'fielderror.weight_number',
  },
  { field: 'harvested_at', match: [/^must be a timestamp/, /^phải là thời điểm/], text: 'fielderror.time' },
];

/** Now, as a datetime-local input's value in the browser's time zone (to the minute). */
function nowLocal(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}:${pad(now.getMinutes())}`;
}

/** A typed weight: "12,5" and "12.5" are both twelve and a half; anything else goes as typed. */
function weight(text: string): number | string | undefined {
  const trimmed = text.trim().replace(/\s/g, '');
  if (trimmed === '') return undefined;
  const value = Number(trimmed.replace(',', '.'));
  return Number.isFinite(value) && /^-?\d*[.,]?\d*$/.test(trimmed) ? value : trimmed;
}

export default function DeclarePage() {
  const { t } = useTexts(texts);
  const parcels = useParcels();
  const cropTypes = useCropTypes();

  let body: React.ReactNode;
  if (parcels.isPending || cropTypes.isPending) body = <Loading label={t('form.loading')} />;
  else if (parcels.isError || cropTypes.isError) {
    body = (
      <ErrorState
        error={parcels.error ?? cropTypes.error}
        onRetry={() => {
          if (parcels.isError) void parcels.refetch();
          if (cropTypes.isError) void cropTypes.refetch();
        }}
      />
    );
  } else if (parcels.data.length === 0) {
    body = (
      <Empty title={t('form.no_parcels')}>
        <p>{t('form.no_parcels_body')}</p>
      </Empty>
    );
  } else if (cropTypes.data.length === 0) {
    body = (
      <Empty title={t('form.no_crops')}>
        <p>{t('form.no_crops_body')}</p>
      </Empty>
    );
  } else body = <DeclareForm parcels={parcels.data} cropTypes={cropTypes.data} />;

  return (
    <section className="page narrow harvests">
      <Link className="back" to="/harvests">
        ← {t('form.back')}
      </Link>
      <PageHeading>{t('form.title')}</PageHeading>
      <p className="lead">{t('form.intro')}</p>
      {body}
    </section>
  );
}

function DeclareForm({
  parcels,
  cropTypes,
}: {
  parcels: { id: number; name: string; code: string }[];
  cropTypes: { id: number; name: string }[];
}) {
  const { t, language } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const declare = useDeclareBatch();
  const [parcelId, setParcelId] = useState(parcels.length === 1 ? String(parcels[0]?.id) : '');
  const [cropTypeId, setCropTypeId] = useState(cropTypes.length === 1 ? String(cropTypes[0]?.id) : '');
  const [kg, setKg] = useState('');
  const [harvestedAt, setHarvestedAt] = useState(nowLocal);
  const [notes, setNotes] = useState('');
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);
  const refs = {
    parcel_id: useRef<HTMLSelectElement>(null),
    crop_type_id: useRef<HTMLSelectElement>(null),
    quantity_kg: useRef<HTMLInputElement>(null),
    harvested_at: useRef<HTMLInputElement>(null),
    notes: useRef<HTMLTextAreaElement>(null),
  };
  const summaryRef = useRef<HTMLDivElement>(null);

  function showErrors(next: FormErrors<FieldName>) {
    setErrors(next);
    requestAnimationFrame(() => {
      const first = FIELDS.find((f) => next.fields[f]);
      if (first) refs[first].current?.focus();
      else summaryRef.current?.focus();
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (declare.isPending) return;
    setErrors(noErrors());
    const input: Partial<BatchInput> = {};
    if (parcelId) input.parcel_id = Number(parcelId);
    if (cropTypeId) input.crop_type_id = Number(cropTypeId);
    const quantity = weight(kg);
    if (quantity !== undefined) input.quantity_kg = quantity as number;
    const when = harvestedAt ? new Date(harvestedAt) : null;
    input.harvested_at = when && !Number.isNaN(when.getTime()) ? when.toISOString() : harvestedAt || null;
    if (notes.trim()) input.notes = notes.trim();
    declare.mutate(input, {
      onSuccess: (batch) => {
        const parcel = parcels.find((p) => p.id === batch.parcel_id);
        const crop = cropTypes.find((c) => c.id === batch.crop_type_id);
        announce(
          t('form.done', {
            kg: formatNumber(batch.quantity_kg, language, { maximumFractionDigits: 3 }),
            crop: crop?.name ?? '',
            parcel: parcel?.name ?? '',
          }),
        );
        void navigate({ to: '/harvests' });
      },
      onError: (err) => {
        if (!(err instanceof SessionExpiredError)) showErrors(ownFormErrors(err, FIELDS, t, RULES));
      },
    });
  }

  const hasFieldErrors = Object.keys(errors.fields).length > 0;

  return (
    <form onSubmit={submit} noValidate className="harvest-form">
      {(errors.general.length > 0 || hasFieldErrors) && (
        <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef}>
          {errors.general.length > 0 ? (
            errors.general.map((message) => <p key={message}>{message}</p>)
          ) : (
            <p>{t('error.fix_fields')}</p>
          )}
        </div>
      )}
      <Field id="harvest-parcel" label={t('form.parcel')} error={errors.fields.parcel_id}>
        {(control) => (
          <select
            {...control}
            ref={refs.parcel_id}
            name="parcel_id"
            value={parcelId}
            onChange={(event) => setParcelId(event.target.value)}
          >
            <option value="">{t('form.parcel_choose')}</option>
            {parcels.map((p) => (
              <option key={p.id} value={p.id}>
                {p.code && p.code !== p.name ? `${p.name} (${p.code})` : p.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field id="harvest-crop" label={t('form.crop')} error={errors.fields.crop_type_id}>
        {(control) => (
          <select
            {...control}
            ref={refs.crop_type_id}
            name="crop_type_id"
            value={cropTypeId}
            onChange={(event) => setCropTypeId(event.target.value)}
          >
            <option value="">{t('form.crop_choose')}</option>
            {cropTypes.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        id="harvest-kg"
        label={t('form.weight')}
        hint={t('form.weight_hint')}
        error={errors.fields.quantity_kg}
      >
        {(control) => (
          <input
            {...control}
            ref={refs.quantity_kg}
            name="quantity_kg"
            inputMode="decimal"
            autoComplete="off"
            className="weight-input"
            value={kg}
            onChange={(event) => setKg(event.target.value)}
          />
        )}
      </Field>
      <Field
        id="harvest-at"
        label={t('form.harvested_at')}
        hint={t('form.harvested_at_hint')}
        error={errors.fields.harvested_at}
      >
        {(control) => (
          <input
            {...control}
            ref={refs.harvested_at}
            name="harvested_at"
            type="datetime-local"
            value={harvestedAt}
            onChange={(event) => setHarvestedAt(event.target.value)}
          />
        )}
      </Field>
      <Field
        id="harvest-notes"
        label={t('form.notes')}
        hint={t('form.notes_hint')}
        error={errors.fields.notes}
      >
        {(control) => (
          <textarea
            {...control}
            ref={refs.notes}
            name="notes"
            rows={3}
            maxLength={2000}
            value={notes}
            onChange={(event) => setNotes(event.target.value)}
          />
        )}
      </Field>
      <div className="form-actions">
        <button type="submit" className="button primary" aria-disabled={declare.isPending || undefined}>
          {declare.isPending ? t('form.saving') : t('form.submit')}
        </button>
        <Link className="button secondary" to="/harvests">
          {t('form.cancel')}
        </Link>
      </div>
    </form>
  );
}
