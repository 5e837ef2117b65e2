// Add or edit a device (owners). The DevEUI of a LoRaWAN device (16 hex digits, optional) is
// checked here first; the API checks the code (unique, no spaces), the DevEUI and the zone; its
// reasons are shown next to the field they concern and the focus goes to the first one to fix.
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useRef, useState } from 'react';
import { ApiError, SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { Field, type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import { type Device, useDevice, useSaveDevice } from './api';
import { SilenceMinutesField, ZoneField } from './DeviceFields';
import { texts } from './texts';

const FIELDS = ['code', 'name', 'dev_eui', 'zone_id', 'heartbeat_timeout_seconds'] as const;

/** A DevEUI as people copy it (spaces, colons or dashes, any case) in the form the API keeps. */
export function normalDevEui(text: string): string {
  return text.replace(/[\s:-]/g, '').toLowerCase();
}
type FieldName = (typeof FIELDS)[number];

export default function DeviceFormPage() {
  const { id } = useParams({ strict: false }) as { id?: string };
  const editId = id === undefined ? null : Number(id);
  const { t } = useTexts(texts);
  const device = useDevice(editId ?? 0, { active: editId !== null });
  if (editId === null) return <DeviceForm device={null} />;
  if (device.data) return <DeviceForm key={device.data.id} device={device.data} />;
  return (
    <section className="page narrow">
      <Link className="back" to="/sensors">
        ← {t('device.back')}
      </Link>
      {device.isError ? (
        <>
          <PageHeading>{t('devform.edit_title')}</PageHeading>
          <ErrorState
            error={device.error}
            notFound={t('device.not_found')}
            onRetry={() => void device.refetch()}
          />
        </>
      ) : (
        <Loading label={t('device.loading')} />
      )}
    </section>
  );
}

function DeviceForm({ device }: { device: Device | null }) {
  const { t } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const editId = device?.id ?? null;
  const save = useSaveDevice(editId);
  const [code, setCode] = useState(device?.code ?? '');
  const [name, setName] = useState(device?.name ?? '');
  const [devEui, setDevEui] = useState(device?.dev_eui ?? '');
  const [zoneId, setZoneId] = useState(device?.zone_id ? String(device.zone_id) : '');
  const [minutes, setMinutes] = useState(String(Math.round((device?.heartbeat_timeout_seconds ?? 300) / 60)));
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);
  const summaryRef = useRef<HTMLDivElement>(null);
  const refs = {
    code: useRef<HTMLInputElement>(null),
    name: useRef<HTMLInputElement>(null),
    dev_eui: useRef<HTMLInputElement>(null),
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
    if (save.isPending) return;
    const wholeMinutes = Number(minutes);
    const eui = normalDevEui(devEui);
    const found: FormErrors<FieldName> = noErrors();
    if (eui !== '' && !/^[0-9a-f]{16}$/.test(eui)) found.fields.dev_eui = t('devform.dev_eui_pattern');
    if (!Number.isInteger(wholeMinutes) || wholeMinutes < 1) {
      found.fields.heartbeat_timeout_seconds = t('devform.timeout_number');
    }
    if (Object.keys(found.fields).length > 0) {
      showErrors(found);
      return;
    }
    setErrors(noErrors());
    save.mutate(
      {
        code: code.trim(),
        name: name.trim(),
        dev_eui: eui === '' ? null : eui,
        zone_id: zoneId ? Number(zoneId) : null,
        heartbeat_timeout_seconds: wholeMinutes * 60,
      },
      {
        onSuccess: (savedId) => {
          announce(
            editId === null ? t('devform.created', { name: name.trim() || code.trim() }) : t('devform.saved'),
          );
          void navigate({ to: '/sensors/devices/$id', params: { id: String(savedId) } });
        },
        onError: (err) => {
          if (err instanceof SessionExpiredError) return;
          const found = formErrors(err, FIELDS, t);
          // Another device has this DevEUI: said next to the field (the API's words name it).
          if (err instanceof ApiError && err.code === 'dev_eui_taken') {
            found.fields.dev_eui = err.message;
            found.general = [];
          }
          // "has an invalid format" says little: the code's rule in plain words instead.
          if (found.fields.code && !code.trim()) found.fields.code = t('fielderror.required');
          else if (found.fields.code && /format|định dạng|pattern/i.test(found.fields.code))
            found.fields.code = t('devform.code_pattern');
          if (found.fields.dev_eui && /format|định dạng|pattern/i.test(found.fields.dev_eui))
            found.fields.dev_eui = t('devform.dev_eui_pattern');
          showErrors(found);
        },
      },
    );
  }

  const hasFieldErrors = Object.keys(errors.fields).length > 0;
  const cancel =
    editId === null ? (
      <Link className="button secondary" to="/sensors">
        {t('form.cancel')}
      </Link>
    ) : (
      <Link className="button secondary" to="/sensors/devices/$id" params={{ id: String(editId) }}>
        {t('form.cancel')}
      </Link>
    );

  return (
    <section className="page narrow">
      <Link className="back" to="/sensors">
        ← {t('device.back')}
      </Link>
      <PageHeading>{t(editId === null ? 'devform.add_title' : 'devform.edit_title')}</PageHeading>
      <form onSubmit={submit} noValidate className="sensors-form">
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
          id="device-code"
          label={t('devform.code')}
          hint={t('devform.code_hint')}
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
              required
              value={code}
              onChange={(event) => setCode(event.target.value)}
            />
          )}
        </Field>
        <Field
          id="device-name"
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
              onChange={(event) => setName(event.target.value)}
            />
          )}
        </Field>
        <Field
          id="device-eui"
          label={t('devform.dev_eui')}
          hint={t('devform.dev_eui_hint')}
          error={errors.fields.dev_eui}
        >
          {(control) => (
            <input
              {...control}
              ref={refs.dev_eui}
              name="dev_eui"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              value={devEui}
              onChange={(event) => setDevEui(event.target.value)}
            />
          )}
        </Field>
        <ZoneField
          id="device-zone"
          value={zoneId}
          onChange={setZoneId}
          error={errors.fields.zone_id}
          inputRef={refs.zone_id}
        />
        <SilenceMinutesField
          id="device-timeout"
          hint={t('devform.timeout_hint')}
          value={minutes}
          onChange={setMinutes}
          error={errors.fields.heartbeat_timeout_seconds}
          inputRef={refs.heartbeat_timeout_seconds}
        />
        <div className="form-actions">
          <button type="submit" className="button primary" aria-disabled={save.isPending || undefined}>
            {save.isPending ? t('form.saving') : t(editId === null ? 'devform.create' : 'form.save')}
          </button>
          {cancel}
        </div>
      </form>
    </section>
  );
}
