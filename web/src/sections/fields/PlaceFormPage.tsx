// Add a block, zone or parcel (/fields/:farmId/:kind/new) or change one (/fields/:farmId/:kind/:id).
// The farm is chosen from a list (the farm of the page by default); a parcel also picks its block
// and zone among that farm's. The API's reasons are shown next to each field, what was typed stays.
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { Field, type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import {
  type Block,
  flatten,
  isKind,
  type Kind,
  type Parcel,
  type ParcelInput,
  useFarmOptions,
  usePlace,
  usePlaces,
  useSavePlace,
} from './api';
import { farmSearch, kindText, OwnerOnlyForm, useIsOwner } from './parts';
import { texts } from './texts';

const FIELDS = ['name', 'farm_id', 'code', 'block_id', 'zone_id', 'area'] as const;
type FieldName = (typeof FIELDS)[number];

export default function PlaceFormPage() {
  const params = useParams({ strict: false }) as { farmId: string; kind: string; id?: string };
  const { t } = useTexts(texts);
  const owner = useIsOwner();
  const kind: Kind = isKind(params.kind) ? params.kind : 'blocks';
  const editing = params.id !== undefined;
  const title = t(editing ? kindText(kind, 'edit_title') : kindText(kind, 'add'));
  const place = usePlace(kind, editing && owner ? Number(params.id) : 0);

  if (!owner) return <OwnerOnlyForm title={title} />;
  if (!editing) return <PlaceForm kind={kind} farmId={Number(params.farmId)} place={null} />;
  if (!place.data) {
    return (
      <section className="page narrow">
        <PageHeading>{title}</PageHeading>
        {place.isError ? (
          <ErrorState
            error={place.error}
            notFound={t(kindText(kind, 'not_found'))}
            onRetry={() => void place.refetch()}
          />
        ) : (
          <Loading />
        )}
      </section>
    );
  }
  return <PlaceForm key={place.data.id} kind={kind} farmId={place.data.farm_id} place={place.data} />;
}

interface PlaceFormProps {
  kind: Kind;
  farmId: number;
  place: Block | Parcel | null;
}

function PlaceForm({ kind, farmId, place }: PlaceFormProps) {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const save = useSavePlace(kind, place?.id ?? null);
  const parcel = kind === 'parcels' ? (place as Parcel | null) : null;
  const [values, setValues] = useState<Record<FieldName, string>>(() => ({
    name: place?.name ?? '',
    farm_id: String(place?.farm_id ?? farmId),
    code: parcel?.code ?? '',
    block_id: parcel?.block_id ? String(parcel.block_id) : '',
    zone_id: parcel?.zone_id ? String(parcel.zone_id) : '',
    area: parcel?.area === null || parcel?.area === undefined ? '' : String(parcel.area),
  }));
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);
  const formRef = useRef<HTMLFormElement>(null);
  const summaryRef = useRef<HTMLDivElement>(null);

  const chosenFarm = Number(values.farm_id);
  const farms = useFarmOptions();
  const blocks = usePlaces('blocks', chosenFarm, { enabled: kind === 'parcels' });
  const zones = usePlaces('zones', chosenFarm, { enabled: kind === 'parcels' });
  const farmChoices = farms.data?.items ?? [];

  function showErrors(next: FormErrors<FieldName>) {
    setErrors(next);
    requestAnimationFrame(() => {
      const first = FIELDS.find((field) => next.fields[field]);
      if (first) formRef.current?.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
      else summaryRef.current?.focus();
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (save.isPending) return;
    const input: ParcelInput = {
      name: values.name.trim(),
      farm_id: values.farm_id ? Number(values.farm_id) : null,
    };
    if (kind === 'parcels') {
      const area = values.area.trim().replace(',', '.');
      if (area !== '' && !Number.isFinite(Number(area))) {
        showErrors({ fields: { area: t('form.area_invalid') }, general: [] });
        return;
      }
      input.code = values.code.trim();
      input.block_id = values.block_id ? Number(values.block_id) : null;
      input.zone_id = values.zone_id ? Number(values.zone_id) : null;
      input.area = area === '' ? null : Number(area);
    }
    setErrors(noErrors());
    save.mutate(input, {
      onSuccess: (saved) => {
        announce(place ? t('form.saved') : t(kindText(kind, 'added'), { name: saved.name }));
        void navigate({
          to: '/fields/$farmId',
          params: { farmId: String(saved.farm_id) },
          search: farmSearch(kind),
        });
      },
      onError: (err) => {
        if (!(err instanceof SessionExpiredError)) showErrors(formErrors(err, FIELDS, t));
      },
    });
  }

  const set = (field: FieldName) => (event: { target: { value: string } }) =>
    setValues((now) => ({ ...now, [field]: event.target.value }));
  const setFarm = (event: { target: { value: string } }) =>
    // Another farm has other blocks and zones: the parcel's are chosen again.
    setValues((now) => ({ ...now, farm_id: event.target.value, block_id: '', zone_id: '' }));
  const hasFieldErrors = Object.keys(errors.fields).length > 0;
  const backTo = {
    to: '/fields/$farmId',
    params: { farmId: String(farmId) },
    search: farmSearch(kind),
  } as const;

  return (
    <section className="page narrow fields-form">
      <Link className="back" {...backTo}>
        ← {farmChoices.find((farm) => farm.id === farmId)?.name ?? t(`kind.${kind}`)}
      </Link>
      <PageHeading>{t(place ? kindText(kind, 'edit_title') : kindText(kind, 'add'))}</PageHeading>
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
        <Field id="place-name" label={t('form.name')} error={errors.fields.name}>
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
        <Field
          id="place-farm"
          label={t('form.farm')}
          hint={t('form.farm_hint')}
          error={errors.fields.farm_id}
        >
          {(control) => (
            <select {...control} name="farm_id" required value={values.farm_id} onChange={setFarm}>
              {/* The chosen farm stays selected while the list loads (or when it is not among it). */}
              {!farmChoices.some((farm) => String(farm.id) === values.farm_id) && (
                <option value={values.farm_id}>
                  {farms.isPending ? t('form.loading_choices') : t('form.choose_farm')}
                </option>
              )}
              {farmChoices.map((farm) => (
                <option key={farm.id} value={farm.id}>
                  {farm.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        {farms.isError && <ErrorState error={farms.error} onRetry={() => void farms.refetch()} />}
        {kind === 'parcels' && (
          <>
            <Field
              id="place-code"
              label={t('form.code')}
              hint={t('form.code_hint')}
              error={errors.fields.code}
            >
              {(control) => (
                <input
                  {...control}
                  name="code"
                  autoComplete="off"
                  value={values.code}
                  onChange={set('code')}
                />
              )}
            </Field>
            <div className="field-pair">
              <Field id="place-block" label={t('form.block')} error={errors.fields.block_id}>
                {(control) => (
                  <select {...control} name="block_id" value={values.block_id} onChange={set('block_id')}>
                    <option value="">
                      {blocks.isPending ? t('form.loading_choices') : t('form.no_block')}
                    </option>
                    {flatten(blocks.data).items.map((block) => (
                      <option key={block.id} value={block.id}>
                        {block.name}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field id="place-zone" label={t('form.zone')} error={errors.fields.zone_id}>
                {(control) => (
                  <select {...control} name="zone_id" value={values.zone_id} onChange={set('zone_id')}>
                    <option value="">
                      {zones.isPending ? t('form.loading_choices') : t('form.no_zone')}
                    </option>
                    {flatten(zones.data).items.map((zone) => (
                      <option key={zone.id} value={zone.id}>
                        {zone.name}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            </div>
            <Field id="place-area" label={t('form.area')} error={errors.fields.area}>
              {(control) => (
                <input
                  {...control}
                  name="area"
                  inputMode="decimal"
                  value={values.area}
                  onChange={set('area')}
                />
              )}
            </Field>
          </>
        )}
        <div className="form-actions">
          <button type="submit" className="button primary" aria-disabled={save.isPending || undefined}>
            {save.isPending ? t('form.saving') : t(place ? 'form.save' : kindText(kind, 'add'))}
          </button>
          <Link className="button secondary" {...backTo}>
            {t('form.cancel')}
          </Link>
        </div>
      </form>
    </section>
  );
}
