// Add a new device the network server told of (owners): its name (the network's name to start
// with), its code, zone and silence limit; then its page, where its next readings show.
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { Field, type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import { type UnclaimedDevice, useAdopt, useUnclaimed, useZones } from './api';
import { SilenceMinutesField, ZoneField } from './DeviceFields';
import { LastValues, sourceName } from './NewDevicesPage';
import { OwnersOnly } from './parts';
import { texts } from './texts';

const FIELDS = ['name', 'code', 'zone_id', 'heartbeat_timeout_seconds'] as const;
type FieldName = (typeof FIELDS)[number];

/** A device code from the network's name ("Greenhouse B #2" → "greenhouse-b-2"), else the DevEUI. */
export function suggestedCode(device: UnclaimedDevice): string {
  const fromName = (device.name ?? '')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/đ/gi, 'd')
    .toLowerCase()
    .replace(/[^a-z0-9_.:-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return fromName || device.dev_eui;
}

export default function AdoptPage() {
  const { t } = useTexts(texts);
  return (
    <OwnersOnly title={t('adopt.title')}>
      <AdoptLoader />
    </OwnersOnly>
  );
}

function AdoptLoader() {
  const { devEui } = useParams({ strict: false }) as { devEui: string };
  const { t } = useTexts(texts);
  const unclaimed = useUnclaimed();
  // Once adopted it leaves the list; the form stays until the device's page opens.
  const shown = useRef<UnclaimedDevice | undefined>(undefined);
  const device = unclaimed.data?.find((d) => d.dev_eui === devEui.toLowerCase()) ?? shown.current;
  shown.current = device;
  if (device) return <AdoptForm device={device} />;
  return (
    <section className="page narrow">
      <Link className="back" to="/sensors/new-devices">
        ← {t('unclaimed.back')}
      </Link>
      {unclaimed.isPending ? (
        <Loading label={t('unclaimed.loading')} />
      ) : (
        <>
          <PageHeading>{t('adopt.title')}</PageHeading>
          {unclaimed.isError ? (
            <ErrorState error={unclaimed.error} onRetry={() => void unclaimed.refetch()} />
          ) : (
            <p className="notice notice-info">{t('adopt.gone')}</p>
          )}
        </>
      )}
    </section>
  );
}

function AdoptForm({ device }: { device: UnclaimedDevice }) {
  const { t, language } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const zones = useZones();
  const adopt = useAdopt(device.dev_eui);
  const [name, setName] = useState(device.name ?? '');
  const [code, setCode] = useState(() => suggestedCode(device));
  const [zoneId, setZoneId] = useState(() =>
    // A farm with a single zone: that one.
    zones.data?.length === 1 && zones.data[0] ? String(zones.data[0].id) : '',
  );
  const [minutes, setMinutes] = useState('30');
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);
  const summaryRef = useRef<HTMLDivElement>(null);
  const refs = {
    name: useRef<HTMLInputElement>(null),
    code: useRef<HTMLInputElement>(null),
    zone_id: useRef<HTMLSelectElement>(null),
    heartbeat_timeout_seconds: useRef<HTMLInputElement>(null),
  };

  function showErrors(next: FormErrors<FieldName>) {
    setErrors(next);
    requestAnimationFrame(() => {
      const first = FIELDS.find((field) => next.fields[field]);
      if (first) refs[first].current?.focus();
      else summaryRef.current?.focus();
    });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (adopt.isPending) return;
    const wholeMinutes = Number(minutes);
    if (!Number.isInteger(wholeMinutes) || wholeMinutes < 1) {
      showErrors({ fields: { heartbeat_timeout_seconds: t('devform.timeout_number') }, general: [] });
      return;
    }
    setErrors(noErrors());
    const label = name.trim() || code.trim() || device.dev_eui;
    adopt.mutate(
      {
        ...(code.trim() ? { code: code.trim() } : {}),
        ...(name.trim() ? { name: name.trim() } : {}),
        zone_id: zoneId ? Number(zoneId) : null,
        heartbeat_timeout_seconds: wholeMinutes * 60,
      },
      {
        onSuccess: (made) => {
          announce(t('adopt.done', { name: label }));
          void navigate({ to: '/sensors/devices/$id', params: { id: String(made.id) } });
        },
        onError: (err) => {
          if (err instanceof SessionExpiredError) return;
          const found = formErrors(err, FIELDS, t);
          if (found.fields.code && /format|định dạng|pattern/i.test(found.fields.code))
            found.fields.code = t('devform.code_pattern');
          showErrors(found);
        },
      },
    );
  }

  const hasFieldErrors = Object.keys(errors.fields).length > 0;

  return (
    <section className="page narrow">
      <Link className="back" to="/sensors/new-devices">
        ← {t('unclaimed.back')}
      </Link>
      <PageHeading>{t('adopt.title')}</PageHeading>
      <dl className="facts adopt-facts">
        <div>
          <dt>{t('device.dev_eui')}</dt>
          <dd>
            <code>{device.dev_eui}</code>
          </dd>
        </div>
        <div>
          <dt>{t('unclaimed.through')}</dt>
          <dd>{sourceName(device.source, t)}</dd>
        </div>
        <div>
          <dt>{t('unclaimed.last_values')}</dt>
          <dd>
            <LastValues payload={device.last_payload} language={language} />
          </dd>
        </div>
      </dl>
      <form onSubmit={submit} noValidate className="sensors-form">
        {(errors.general.length > 0 || hasFieldErrors) && (
          <div className="notice notice-error" role="alert" tabIndex={-1} ref={summaryRef}>
            {errors.general.length > 0 ? (
              errors.general.map((text) => <p key={text}>{text}</p>)
            ) : (
              <p>{t('error.fix_fields')}</p>
            )}
          </div>
        )}
        <Field
          id="adopt-name"
          label={t('devform.name')}
          hint={t('devform.name_hint')}
          error={errors.fields.name}
        >
          {(control) => (
            <input
              {...control}
              ref={refs.name}
              name="name"
              autoComplete="off"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <Field
          id="adopt-code"
          label={t('devform.code')}
          hint={t('adopt.code_hint')}
          error={errors.fields.code}
        >
          {(control) => (
            <input
              {...control}
              ref={refs.code}
              name="code"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          )}
        </Field>
        <ZoneField
          id="adopt-zone"
          value={zoneId}
          onChange={setZoneId}
          error={errors.fields.zone_id}
          inputRef={refs.zone_id}
        />
        <SilenceMinutesField
          id="adopt-timeout"
          hint={t('adopt.timeout_hint')}
          value={minutes}
          onChange={setMinutes}
          error={errors.fields.heartbeat_timeout_seconds}
          inputRef={refs.heartbeat_timeout_seconds}
        />
        <div className="form-actions">
          <button type="submit" className="button primary" aria-disabled={adopt.isPending || undefined}>
            {adopt.isPending ? t('form.saving') : t('adopt.submit')}
          </button>
          <Link className="button secondary" to="/sensors/new-devices">
            {t('form.cancel')}
          </Link>
        </div>
      </form>
    </section>
  );
}
