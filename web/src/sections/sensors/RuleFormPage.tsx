// Add or edit an alert rule (owners): what it watches (a device or every device of a zone), the
// measurement, the side and the limit, where it is back to normal, how long it must last, how
// serious it is, and its own text. The API's reasons are
// shown next to the field they concern; the focus goes to the first one to fix.
import { Link, useNavigate, useParams } from '@tanstack/react-router';
import { type FormEvent, useMemo, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { Field, type FormErrors, formErrors, noErrors } from '../../ui/Field';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import {
  OPERATORS,
  type Operator,
  type Rule,
  SEVERITIES,
  type Severity,
  useDevices,
  useRule,
  useSaveRule,
  useZones,
} from './api';
import { metricName } from './parts';
import { texts } from './texts';

const FIELDS = [
  'target',
  'metric',
  'operator',
  'threshold',
  'clear_threshold',
  'min_duration_seconds',
  'severity',
  'message',
] as const;
type FieldName = (typeof FIELDS)[number];

export default function RuleFormPage() {
  const { id } = useParams({ strict: false }) as { id?: string };
  const editId = id === undefined ? null : Number(id);
  const { t } = useTexts(texts);
  const rule = useRule(editId);
  if (editId === null) return <RuleForm rule={null} />;
  if (rule.data) return <RuleForm key={rule.data.id} rule={rule.data} />;
  return (
    <section className="page narrow">
      <Link className="back" to="/sensors">
        ← {t('device.back')}
      </Link>
      {rule.isError ? (
        <>
          <PageHeading>{t('ruleform.edit_title')}</PageHeading>
          <ErrorState
            error={rule.error}
            notFound={t('ruleform.not_found')}
            onRetry={() => void rule.refetch()}
          />
        </>
      ) : (
        <Loading label={t('rules.loading')} />
      )}
    </section>
  );
}

function RuleForm({ rule }: { rule: Rule | null }) {
  const { t, language } = useTexts(texts);
  const announce = useAnnounce();
  const navigate = useNavigate();
  const devices = useDevices();
  const zones = useZones();
  const editId = rule?.id ?? null;
  const save = useSaveRule(editId);
  const [target, setTarget] = useState(
    rule?.device_id ? `device:${rule.device_id}` : rule?.zone_id ? `zone:${rule.zone_id}` : '',
  );
  const [metric, setMetric] = useState(rule?.metric ?? '');
  const [operator, setOperator] = useState<Operator>(rule?.operator ?? 'gt');
  const [threshold, setThreshold] = useState(rule ? String(rule.threshold) : '');
  const [clearAt, setClearAt] = useState(
    rule?.clear_threshold === null || rule?.clear_threshold === undefined ? '' : String(rule.clear_threshold),
  );
  const [lastsMinutes, setLastsMinutes] = useState(
    rule?.min_duration_seconds ? String(Math.round(rule.min_duration_seconds / 60)) : '0',
  );
  const [severity, setSeverity] = useState<Severity>(rule?.severity ?? 'warning');
  const [message, setMessage] = useState(rule?.message ?? '');
  const [errors, setErrors] = useState<FormErrors<FieldName>>(noErrors);
  const summaryRef = useRef<HTMLDivElement>(null);
  const refs = {
    target: useRef<HTMLSelectElement>(null),
    metric: useRef<HTMLInputElement>(null),
    operator: useRef<HTMLSelectElement>(null),
    threshold: useRef<HTMLInputElement>(null),
    clear_threshold: useRef<HTMLInputElement>(null),
    min_duration_seconds: useRef<HTMLInputElement>(null),
    severity: useRef<HTMLSelectElement>(null),
    message: useRef<HTMLInputElement>(null),
  };
  // Measurements to pick from: the common ones, typed ones stay possible.
  const suggestions = useMemo(
    () => [
      'temperature',
      'humidity',
      'soil_moisture',
      'soil_temperature',
      'battery_level',
      'ph',
      'ec',
      'light',
      'rainfall',
    ],
    [],
  );

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
    const [kind, targetId] = target.split(':');
    // A comma is a decimal mark in Vietnamese: 12,5 is 12.5.
    const decimal = (text: string) =>
      text.trim() === '' ? undefined : Number(text.trim().replace(',', '.'));
    const limit = decimal(threshold);
    const clear = decimal(clearAt);
    const minutes = lastsMinutes.trim() === '' ? 0 : Number(lastsMinutes.trim());
    const found: FormErrors<FieldName> = noErrors();
    if (limit !== undefined && !Number.isFinite(limit))
      found.fields.threshold = t('ruleform.threshold_number');
    if (clear !== undefined && !Number.isFinite(clear))
      found.fields.clear_threshold = t('ruleform.threshold_number');
    else if (clear !== undefined && limit !== undefined && Number.isFinite(limit)) {
      // Back to normal lies on the normal side of the limit (or on it).
      const above = operator === 'gt' || operator === 'gte';
      if (above ? clear > limit : clear < limit) {
        found.fields.clear_threshold = t(above ? 'ruleform.clear_not_above' : 'ruleform.clear_not_below');
      }
    }
    if (!Number.isInteger(minutes) || minutes < 0)
      found.fields.min_duration_seconds = t('ruleform.lasts_number');
    if (Object.keys(found.fields).length > 0) {
      showErrors(found);
      return;
    }
    setErrors(noErrors());
    save.mutate(
      {
        metric: metric.trim(),
        operator,
        threshold: limit as number,
        clear_threshold: clear ?? null,
        min_duration_seconds: minutes * 60,
        severity,
        message: message.trim() || null,
        device_id: kind === 'device' ? Number(targetId) : null,
        zone_id: kind === 'zone' ? Number(targetId) : null,
      },
      {
        onSuccess: () => {
          announce(t(editId === null ? 'ruleform.created' : 'ruleform.saved'));
          void navigate({ to: '/sensors' });
        },
        onError: (err) => {
          if (err instanceof SessionExpiredError) return;
          const found = formErrors(err, [...FIELDS, 'device_id', 'zone_id'] as const, t);
          const { device_id, zone_id, ...fields } = found.fields;
          const next: FormErrors<FieldName> = { fields, general: found.general };
          if (device_id || zone_id)
            next.fields.target = target ? (device_id ?? zone_id) : t('ruleform.target_required');
          if (
            next.fields.metric &&
            metric.trim() !== '' &&
            /format|định dạng|pattern/i.test(next.fields.metric)
          )
            next.fields.metric = t('ruleform.metric_pattern');
          showErrors(next);
        },
      },
    );
  }

  const hasFieldErrors = Object.keys(errors.fields).length > 0;

  return (
    <section className="page narrow">
      <Link className="back" to="/sensors">
        ← {t('device.back')}
      </Link>
      <PageHeading>{t(editId === null ? 'ruleform.add_title' : 'ruleform.edit_title')}</PageHeading>
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
          id="rule-target"
          label={t('ruleform.target')}
          hint={t('ruleform.target_hint')}
          error={errors.fields.target}
        >
          {(control) => (
            <select
              {...control}
              ref={refs.target}
              name="target"
              value={target}
              onChange={(e) => setTarget(e.target.value)}
            >
              <option value="">{t('ruleform.choose')}</option>
              <optgroup label={t('ruleform.devices')}>
                {(devices.data ?? []).map((d) => (
                  <option key={d.id} value={`device:${d.id}`}>
                    {d.name}
                  </option>
                ))}
              </optgroup>
              {(zones.data?.length ?? 0) > 0 && (
                <optgroup label={t('ruleform.zones')}>
                  {(zones.data ?? []).map((z) => (
                    <option key={z.id} value={`zone:${z.id}`}>
                      {z.name}
                    </option>
                  ))}
                </optgroup>
              )}
            </select>
          )}
        </Field>
        <Field
          id="rule-metric"
          label={t('ruleform.metric')}
          hint={t('ruleform.metric_hint')}
          error={errors.fields.metric}
        >
          {(control) => (
            <>
              <input
                {...control}
                ref={refs.metric}
                name="metric"
                list="rule-metric-suggestions"
                autoComplete="off"
                autoCapitalize="none"
                spellCheck={false}
                value={metric}
                onChange={(e) => setMetric(e.target.value)}
              />
              <datalist id="rule-metric-suggestions">
                {suggestions.map((m) => (
                  <option key={m} value={m}>
                    {metricName(m, language)}
                  </option>
                ))}
              </datalist>
            </>
          )}
        </Field>
        <div className="field-row">
          <Field id="rule-operator" label={t('ruleform.operator')} error={errors.fields.operator}>
            {(control) => (
              <select
                {...control}
                ref={refs.operator}
                name="operator"
                value={operator}
                onChange={(e) => setOperator(e.target.value as Operator)}
              >
                {OPERATORS.map((op) => (
                  <option key={op} value={op}>
                    {t(`op.${op}`)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field
            id="rule-threshold"
            label={t('ruleform.threshold')}
            hint={t('ruleform.threshold_hint')}
            error={errors.fields.threshold}
          >
            {(control) => (
              <input
                {...control}
                ref={refs.threshold}
                name="threshold"
                inputMode="decimal"
                autoComplete="off"
                value={threshold}
                onChange={(e) => setThreshold(e.target.value)}
              />
            )}
          </Field>
        </div>
        <div className="field-row">
          <Field
            id="rule-clear"
            label={t('ruleform.clear')}
            hint={t('ruleform.clear_hint')}
            error={errors.fields.clear_threshold}
          >
            {(control) => (
              <input
                {...control}
                ref={refs.clear_threshold}
                name="clear_threshold"
                inputMode="decimal"
                autoComplete="off"
                value={clearAt}
                onChange={(e) => setClearAt(e.target.value)}
              />
            )}
          </Field>
          <Field
            id="rule-lasts"
            label={t('ruleform.lasts')}
            hint={t('ruleform.lasts_hint')}
            error={errors.fields.min_duration_seconds}
          >
            {(control) => (
              <input
                {...control}
                ref={refs.min_duration_seconds}
                name="min_duration_minutes"
                type="number"
                inputMode="numeric"
                min={0}
                step={1}
                value={lastsMinutes}
                onChange={(e) => setLastsMinutes(e.target.value)}
              />
            )}
          </Field>
        </div>
        <Field id="rule-severity" label={t('ruleform.severity')} error={errors.fields.severity}>
          {(control) => (
            <select
              {...control}
              ref={refs.severity}
              name="severity"
              value={severity}
              onChange={(e) => setSeverity(e.target.value as Severity)}
            >
              {SEVERITIES.map((s) => (
                <option key={s} value={s}>
                  {t(`severity.${s}`)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          id="rule-message"
          label={t('ruleform.message')}
          hint={t('ruleform.message_hint')}
          error={errors.fields.message}
        >
          {(control) => (
            <input
              {...control}
              ref={refs.message}
              name="message"
              autoComplete="off"
              value={message}
              onChange={(e) => setMessage(e.target.value)}
            />
          )}
        </Field>
        <div className="form-actions">
          <button type="submit" className="button primary" aria-disabled={save.isPending || undefined}>
            {save.isPending ? t('form.saving') : t(editId === null ? 'ruleform.create' : 'form.save')}
          </button>
          <Link className="button secondary" to="/sensors">
            {t('form.cancel')}
          </Link>
        </div>
      </form>
    </section>
  );
}
