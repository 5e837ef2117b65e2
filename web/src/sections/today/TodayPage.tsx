// Today: the morning check. What needs someone now, on one page: active alerts (acknowledge them
// here), sensors gone quiet, the day's and overdue diary tasks by person, harvests waiting for the
// owner's confirmation, and (owners) paused webhooks. Each group says how many, and the page asks
// again every 15 seconds, so the numbers follow the farm without a reload.
import { Link } from '@tanstack/react-router';
import { type ReactNode, type RefObject, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useSession } from '../../app/session';
import { type SectionI18n, useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { formatDate, formatNumber, formatRelative, formatTime } from '../../ui/format';
import { PageHeading } from '../../ui/PageHeading';
import { describeError, ErrorState, Loading } from '../../ui/States';
import {
  diaryTimeIso,
  type TodayAlert,
  type TodayAnswer,
  type TodayBatch,
  type TodayDevice,
  type TodayTask,
  type TodayWebhook,
  useAcknowledgeAlert,
  useConfirmBatch,
  useToday,
} from './api';
import { METRICS, texts } from './texts';
import './today.css';

type T = SectionI18n<keyof (typeof texts)['en'] & string>;

const GROUPS = ['alerts', 'devices', 'tasks', 'harvests', 'webhooks'] as const;
type GroupId = (typeof GROUPS)[number];

const headingId = (group: GroupId) => `today-${group}-title`;

function focusHeading(group: GroupId) {
  requestAnimationFrame(() => document.getElementById(headingId(group))?.focus());
}

export default function TodayPage() {
  const i18n = useTexts(texts);
  const { t, language } = i18n;
  const today = useToday();
  const data = today.data;

  return (
    <section className="page today">
      <div className="page-title today-title">
        <PageHeading>{t('today.title')}</PageHeading>
        {data && (
          <p className="today-date">
            <time dateTime={data.day.date}>{formatDate(data.day.starts_at, language)}</time>
          </p>
        )}
      </div>

      {today.isPending && <Loading label={t('today.loading')} />}
      {today.isError && <ErrorState error={today.error} onRetry={() => void today.refetch()} />}
      {data && <TodayContent data={data} i18n={i18n} />}
    </section>
  );
}

function TodayContent({ data, i18n }: { data: TodayAnswer; i18n: T }) {
  const { t, language } = i18n;
  const { session } = useSession();
  const owner = session.user.role === 'owner';
  const counts = countsOf(data);
  const shown = GROUPS.filter((group) => group !== 'webhooks' || data.paused_webhooks !== null);
  const allWell = shown.every((group) => counts[group] === 0);

  return (
    <>
      <p className="today-updated muted">
        {t('today.updated', { time: formatTime(data.generated_at, language, 'minute') })}
      </p>
      {allWell ? (
        <div className="today-all-well" role="status">
          <span className="today-all-well-mark" aria-hidden="true">
            ✓
          </span>
          <div>
            <h2>{t('today.all_well')}</h2>
            <p>{t('today.all_well_body')}</p>
          </div>
        </div>
      ) : (
        <nav className="today-summary" aria-label={t('today.summary')}>
          <ul>
            {shown.map((group) => (
              <li key={group}>
                <button
                  type="button"
                  className={`today-tile${counts[group] > 0 ? ' needs' : ''}`}
                  onClick={() => {
                    const heading = document.getElementById(headingId(group));
                    heading?.scrollIntoView({ block: 'start' });
                    heading?.focus({ preventScroll: true });
                  }}
                >
                  <span className="today-tile-count">{formatNumber(counts[group], language)}</span>
                  <span className="today-tile-label">{t(`${group}.tile` as 'alerts.tile')}</span>
                </button>
              </li>
            ))}
          </ul>
        </nav>
      )}

      <div className="today-groups">
        <AlertsGroup data={data} i18n={i18n} count={counts.alerts} />
        <DevicesGroup data={data} i18n={i18n} />
        <TasksGroup data={data} i18n={i18n} owner={owner} ownId={session.user.id} />
        <HarvestsGroup data={data} i18n={i18n} owner={owner} />
        {data.paused_webhooks !== null && owner && <WebhooksGroup part={data.paused_webhooks} i18n={i18n} />}
      </div>
    </>
  );
}

/** What each group counts: alerts that still wait for someone, and every item of the others. */
function countsOf(data: TodayAnswer): Record<GroupId, number> {
  const n = (value: number | null | undefined, fallback: number) => value ?? fallback;
  return {
    alerts: n(data.alerts.unacknowledged, data.alerts.items.filter((a) => !a.acknowledged_at).length),
    devices: n(data.offline_devices.count, data.offline_devices.items.length),
    tasks:
      n(data.tasks.overdue.count, data.tasks.overdue.items.length) +
      n(data.tasks.today.count, data.tasks.today.items.length),
    harvests: n(data.harvest_batches.count, data.harvest_batches.items.length),
    webhooks: data.paused_webhooks ? n(data.paused_webhooks.count, data.paused_webhooks.items.length) : 0,
  };
}

interface GroupProps {
  group: GroupId;
  title: string;
  count: number;
  /** A line under the heading (e.g. "2 overdue, 1 for today"). */
  detail?: string | undefined;
  empty: string;
  footer: ReactNode;
  children?: ReactNode;
  headingRef?: RefObject<HTMLHeadingElement | null>;
}

function Group({ group, title, count, detail, empty, footer, children, headingRef }: GroupProps) {
  return (
    <section
      className={`today-group today-${group}${count > 0 ? ' needs' : ''}`}
      aria-labelledby={headingId(group)}
    >
      <div className="today-group-head">
        <h2 id={headingId(group)} tabIndex={-1} ref={headingRef}>
          <span>{title}</span> <span className="today-count">{count}</span>
        </h2>
        {detail && <p className="today-group-detail">{detail}</p>}
      </div>
      {count === 0 ? <p className="today-empty">{empty}</p> : children}
      <p className="today-group-footer">{footer}</p>
    </section>
  );
}

function More({ total, shown, i18n }: { total: number | null; shown: number; i18n: T }) {
  if (total === null || total <= shown) return null;
  return <span className="today-more">{i18n.plural('today.see_more', total - shown)} · </span>;
}

function When({ iso, language }: { iso: string; language: T['language'] }) {
  return (
    <time dateTime={iso} title={formatTime(iso, language, 'minute')}>
      {formatRelative(iso, language)}
    </time>
  );
}

// Alerts ------------------------------------------------------------------------------------------

function AlertsGroup({ data, i18n, count }: { data: TodayAnswer; i18n: T; count: number }) {
  const { t, plural, language } = i18n;
  const announce = useAnnounce();
  const acknowledge = useAcknowledgeAlert();
  const open = data.alerts.items.filter((alert) => !alert.acknowledged_at);
  const stillActive = data.alerts.count === null ? 0 : data.alerts.count - count;

  function onAcknowledge(alert: TodayAlert) {
    if (acknowledge.isPending) return;
    const index = open.findIndex((a) => a.id === alert.id);
    const next = open[index + 1] ?? open[index - 1];
    acknowledge.mutate(alert.id, {
      onSuccess: () => {
        announce(
          t('alerts.acknowledged', { metric: metricName(alert.metric, language), device: alert.device_name }),
        );
        // The alert leaves the list: the focus goes to the next one's button, or the heading.
        requestAnimationFrame(() => {
          const button = next && document.querySelector<HTMLElement>(`[data-alert-id="${next.id}"]`);
          if (button) button.focus();
          else focusHeading('alerts');
        });
      },
      onError: (err) => {
        if (!(err instanceof SessionExpiredError)) announce(describeError(err, t), 'error');
      },
    });
  }

  return (
    <Group
      group="alerts"
      title={t('alerts.title')}
      count={count}
      empty={t('alerts.empty')}
      footer={
        <>
          <More total={count} shown={open.length} i18n={i18n} />
          <Link to="/sensors">{t('alerts.all')}</Link>
        </>
      }
    >
      <ul className="today-list">
        {open.map((alert) => (
          <AlertCard
            key={alert.id}
            alert={alert}
            i18n={i18n}
            busy={acknowledge.isPending && acknowledge.variables === alert.id}
            onAcknowledge={() => onAcknowledge(alert)}
          />
        ))}
      </ul>
      {stillActive > 0 && <p className="muted today-note">{plural('alerts.still_active', stillActive)}</p>}
    </Group>
  );
}

function metricName(metric: string, language: T['language']): string {
  return METRICS[metric]?.[language] ?? metric.replace(/[_.]/g, ' ');
}

function AlertCard({
  alert,
  i18n,
  busy,
  onAcknowledge,
}: {
  alert: TodayAlert;
  i18n: T;
  busy: boolean;
  onAcknowledge: () => void;
}) {
  const { t, language } = i18n;
  const severity = ['critical', 'warning', 'info'].includes(alert.severity) ? alert.severity : 'warning';
  const operator = ['gt', 'gte', 'lt', 'lte'].includes(alert.operator) ? alert.operator : 'gt';
  return (
    <li className={`today-card severity-${severity}`}>
      <div className="today-card-main">
        <p className="today-card-title">
          <span className={`badge badge-severity-${severity}`}>
            {t(`severity.${severity}` as 'severity.warning')}
          </span>{' '}
          <span className="today-name">{alert.device_name}</span>{' '}
          <span className="today-code">{alert.device_code}</span>
        </p>
        <p className="today-reading">
          <strong>
            {t('alerts.reading', {
              metric: metricName(alert.metric, language),
              value: formatNumber(alert.value, language),
            })}
          </strong>{' '}
          <span className="muted">
            (
            {t(`alerts.limit.${operator}` as 'alerts.limit.gt', {
              threshold: formatNumber(alert.threshold, language),
            })}
            )
          </span>
        </p>
        <p className="today-when">
          {t('alerts.raised')} <When iso={alert.created_at} language={language} />
        </p>
      </div>
      <button
        type="button"
        className="button primary today-action"
        data-alert-id={alert.id}
        aria-disabled={busy || undefined}
        aria-label={
          busy
            ? undefined
            : t('alerts.acknowledge_label', {
                metric: metricName(alert.metric, language),
                device: alert.device_name,
              })
        }
        onClick={onAcknowledge}
      >
        {busy ? t('alerts.acknowledging') : t('alerts.acknowledge')}
      </button>
    </li>
  );
}

// Offline devices ---------------------------------------------------------------------------------

function DevicesGroup({ data, i18n }: { data: TodayAnswer; i18n: T }) {
  const { t, language } = i18n;
  const part = data.offline_devices;
  const count = part.count ?? part.items.length;
  return (
    <Group
      group="devices"
      title={t('devices.title')}
      count={count}
      empty={t('devices.empty')}
      footer={
        <>
          <More total={part.count} shown={part.items.length} i18n={i18n} />
          <Link to="/sensors">{t('devices.all')}</Link>
        </>
      }
    >
      <ul className="today-list">
        {part.items.map((device: TodayDevice) => (
          <li key={device.id} className="today-card">
            <div className="today-card-main">
              <p className="today-card-title">
                <span className="today-name">{device.name}</span>{' '}
                <span className="today-code">{device.code}</span>
              </p>
              <p className="today-when">
                {device.last_heartbeat ? (
                  <>
                    {t('devices.last_heard')} <When iso={device.last_heartbeat} language={language} />
                  </>
                ) : (
                  t('devices.never_heard')
                )}
              </p>
            </div>
          </li>
        ))}
      </ul>
    </Group>
  );
}

// Tasks -------------------------------------------------------------------------------------------

interface Person {
  key: string;
  name: string;
  tasks: TodayTask[];
}

function byPerson(tasks: TodayTask[], ownId: number, i18n: T): Person[] {
  const people = new Map<string, Person>();
  for (const task of tasks) {
    const key = task.assigned_to === null ? 'none' : String(task.assigned_to);
    const name =
      task.assigned_to === null
        ? i18n.t('tasks.unassigned')
        : task.assigned_to === ownId
          ? i18n.t('tasks.you')
          : (task.assigned_name ?? i18n.t('tasks.unassigned'));
    const person = people.get(key) ?? { key, name, tasks: [] };
    person.tasks.push(task);
    people.set(key, person);
  }
  // You first, then people by name, then what nobody has been given.
  return [...people.values()].sort((a, b) => {
    const rank = (p: Person) => (p.key === String(ownId) ? 0 : p.key === 'none' ? 2 : 1);
    return rank(a) - rank(b) || a.name.localeCompare(b.name, i18n.language);
  });
}

function TasksGroup({
  data,
  i18n,
  owner,
  ownId,
}: {
  data: TodayAnswer;
  i18n: T;
  owner: boolean;
  ownId: number;
}) {
  const { t, language } = i18n;
  const { overdue, today } = data.tasks;
  const overdueCount = overdue.count ?? overdue.items.length;
  const todayCount = today.count ?? today.items.length;
  const count = overdueCount + todayCount;
  const tasks = [...overdue.items, ...today.items];
  const people = byPerson(tasks, ownId, i18n);
  const shown = tasks.length;
  return (
    <Group
      group="tasks"
      title={t(owner ? 'tasks.title' : 'tasks.title_own')}
      count={count}
      detail={
        count > 0
          ? t('tasks.counts', {
              overdue: formatNumber(overdueCount, language),
              today: formatNumber(todayCount, language),
            })
          : undefined
      }
      empty={t('tasks.empty')}
      footer={
        <>
          <More total={count} shown={shown} i18n={i18n} />
          <Link to="/diary">{t('tasks.all')}</Link>
        </>
      }
    >
      {owner ? (
        people.map((person) => (
          <div key={person.key} className="today-person">
            <h3>
              {person.name} <span className="today-count small">{person.tasks.length}</span>
            </h3>
            <TaskList tasks={person.tasks} i18n={i18n} />
          </div>
        ))
      ) : (
        <TaskList tasks={tasks} i18n={i18n} />
      )}
    </Group>
  );
}

function TaskList({ tasks, i18n }: { tasks: TodayTask[]; i18n: T }) {
  const { t, language } = i18n;
  return (
    <ul className="today-list">
      {tasks.map((task) => {
        const start = diaryTimeIso(task.start);
        const end = diaryTimeIso(task.end);
        return (
          <li key={task.id} className={`today-card${task.overdue ? ' overdue' : ''}`}>
            <div className="today-card-main">
              <p className="today-card-title">
                {task.overdue && <span className="badge badge-overdue">{t('tasks.overdue')}</span>}{' '}
                <span className="today-name">{task.name}</span>
              </p>
              <p className="today-when">
                {task.overdue && end ? (
                  <>
                    {t('tasks.due')} <When iso={end} language={language} />
                  </>
                ) : start && Date.parse(start) > Date.now() ? (
                  <>
                    {t('tasks.starts')} <When iso={start} language={language} />
                  </>
                ) : end ? (
                  <>
                    {t('tasks.ends')} <When iso={end} language={language} />
                  </>
                ) : (
                  start && (
                    <>
                      {t('tasks.started')} <When iso={start} language={language} />
                    </>
                  )
                )}
              </p>
            </div>
          </li>
        );
      })}
    </ul>
  );
}

// Harvests ----------------------------------------------------------------------------------------

function batchWords(batch: TodayBatch, i18n: T) {
  const { t, language } = i18n;
  return {
    kg: formatNumber(batch.quantity_kg, language, { maximumFractionDigits: 2 }),
    crop: batch.crop_type_name ?? t('harvests.unknown_crop'),
    parcel: batch.parcel_name ?? t('harvests.unknown_parcel'),
    when: formatDate(batch.harvested_at, language),
  };
}

function HarvestsGroup({ data, i18n, owner }: { data: TodayAnswer; i18n: T; owner: boolean }) {
  const { t, language } = i18n;
  const announce = useAnnounce();
  const confirm = useConfirmBatch();
  const [asking, setAsking] = useState<TodayBatch | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const part = data.harvest_batches;
  const count = part.count ?? part.items.length;

  function onConfirm(batch: TodayBatch) {
    if (confirm.isPending) return;
    confirm.mutate(batch.id, {
      onSuccess: () => {
        setAsking(null);
        announce(t('harvests.confirmed', batchWords(batch, i18n)));
      },
      onError: (err) => {
        setAsking(null);
        if (!(err instanceof SessionExpiredError)) announce(describeError(err, t), 'error');
      },
    });
  }

  return (
    <Group
      group="harvests"
      title={t('harvests.title')}
      count={count}
      empty={t('harvests.empty')}
      headingRef={headingRef}
      footer={
        <>
          <More total={part.count} shown={part.items.length} i18n={i18n} />
          <Link to="/harvests">{t('harvests.all')}</Link>
        </>
      }
    >
      <ul className="today-list">
        {part.items.map((batch) => {
          const words = batchWords(batch, i18n);
          return (
            <li key={batch.id} className="today-card">
              <div className="today-card-main">
                <p className="today-card-title">
                  <span className="today-name">{t('harvests.batch', words)}</span>
                </p>
                <p className="today-reading">
                  <strong>{t('harvests.quantity', words)}</strong>
                </p>
                <p className="today-when">
                  {t('harvests.harvested', { when: formatDate(batch.harvested_at, language) })}
                </p>
                {!owner && <p className="today-when">{t('harvests.waiting_owner')}</p>}
              </div>
              {owner && (
                <button
                  type="button"
                  className="button secondary today-action"
                  aria-label={t('harvests.confirm_label', words)}
                  onClick={() => setAsking(batch)}
                >
                  {t('harvests.confirm')}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {asking && (
        <ConfirmDialog
          title={t('harvests.confirm_title')}
          confirmLabel={confirm.isPending ? t('harvests.confirming') : t('harvests.confirm')}
          busy={confirm.isPending}
          onConfirm={() => onConfirm(asking)}
          onCancel={() => setAsking(null)}
          fallbackFocus={headingRef}
        >
          <p>{t('harvests.confirm_body', batchWords(asking, i18n))}</p>
        </ConfirmDialog>
      )}
    </Group>
  );
}

// Webhooks ----------------------------------------------------------------------------------------

function pausedReason(webhook: TodayWebhook, i18n: T): string {
  const reason = webhook.paused_reason ?? '';
  const failures = /^(\d+) .*fail/i.exec(reason);
  if (failures) return i18n.plural('paused.consecutive_failures', Number(failures[1]));
  if (/fail/i.test(reason)) return i18n.t('webhooks.reason_failures');
  if (reason === '' || reason === 'manual' || reason === 'owner') return i18n.t('webhooks.reason_manual');
  if (reason === 'gone') return i18n.t('webhooks.reason_gone');
  return i18n.t('paused.other', { reason });
}

function WebhooksGroup({ part, i18n }: { part: NonNullable<TodayAnswer['paused_webhooks']>; i18n: T }) {
  const { t, language } = i18n;
  const count = part.count ?? part.items.length;
  return (
    <Group
      group="webhooks"
      title={t('webhooks.paused_title')}
      count={count}
      empty={t('webhooks.empty')}
      footer={
        <>
          <More total={part.count} shown={part.items.length} i18n={i18n} />
          <Link to="/webhooks">{t('webhooks.title')}</Link>
        </>
      }
    >
      <ul className="today-list">
        {part.items.map((webhook) => (
          <li key={webhook.id} className="today-card">
            <div className="today-card-main">
              <p className="today-card-title">
                <span className="today-name today-url">{webhook.url}</span>
              </p>
              {webhook.description && <p className="today-when">{webhook.description}</p>}
              <p className="today-reading">{pausedReason(webhook, i18n)}</p>
              <p className="today-when">
                {t('webhooks.paused_since')} <When iso={webhook.updated_at} language={language} />
              </p>
            </div>
            <Link
              className="button secondary today-action"
              to="/webhooks/$id"
              params={{ id: webhook.id }}
              aria-label={t('webhooks.open_label', { url: webhook.url })}
            >
              {t('webhooks.open')}
            </Link>
          </li>
        ))}
      </ul>
    </Group>
  );
}
