// The event catalogue (/manage/webhooks/events): every kind of event an address can receive, by
// group, with its description in the app's language, an example message and the message's JSON
// Schema. The examples and schemas are folded away so the page stays short on a phone.
import { Link } from '@tanstack/react-router';
import { useTexts } from '../../app/texts';
import { PageHeading } from '../../ui/PageHeading';
import { ErrorState, Loading } from '../../ui/States';
import { type EventType, useEventTypes } from './api';
import { texts } from './texts';

const GROUP_KEYS = {
  iot: 'insight.events.group.iot',
  harvest: 'insight.events.group.harvest',
  webhooks: 'insight.events.group.webhooks',
} as const;

export default function EventCatalogue() {
  const { t } = useTexts(texts);
  const eventTypes = useEventTypes();
  const groupName = (group: string) =>
    group in GROUP_KEYS ? t(GROUP_KEYS[group as keyof typeof GROUP_KEYS]) : group;

  // Groups in the catalogue's order, each with its kinds.
  const groups = new Map<string, EventType[]>();
  for (const kind of eventTypes.data ?? []) {
    groups.set(kind.group, [...(groups.get(kind.group) ?? []), kind]);
  }

  return (
    <section className="page event-catalogue">
      <Link className="back" to="/webhooks">
        ← {t('detail.back')}
      </Link>
      <div className="page-title">
        <PageHeading>{t('insight.events.title')}</PageHeading>
      </div>
      <p className="lead">{t('insight.events.intro')}</p>
      {eventTypes.isPending && <Loading label={t('insight.events.loading')} />}
      {eventTypes.isError && (
        <ErrorState error={eventTypes.error} onRetry={() => void eventTypes.refetch()} />
      )}
      {[...groups].map(([group, kinds]) => (
        <section key={group} className="event-group" aria-labelledby={`event-group-${group}`}>
          <h2 id={`event-group-${group}`}>{groupName(group)}</h2>
          {kinds.map((kind) => (
            <EventKind key={kind.type} kind={kind} groupLabel={groupName(group)} />
          ))}
        </section>
      ))}
    </section>
  );
}

function EventKind({ kind, groupLabel }: { kind: EventType; groupLabel: string }) {
  const { t } = useTexts(texts);
  const id = `event-${kind.type.replace(/[^a-z0-9]+/gi, '-')}`;
  return (
    <article className="event-kind" aria-labelledby={id} data-event-type={kind.type}>
      <h3 id={id}>
        <code>{kind.type}</code>
      </h3>
      <p className="event-kind-description">{kind.description}</p>
      <p className="event-kind-group">
        {t('insight.events.group')}: {groupLabel}
      </p>
      <details className="event-example">
        <summary>{t('insight.events.example')}</summary>
        <JsonBlock value={kind.example} label={t('insight.events.example_label', { type: kind.type })} />
      </details>
      <details className="event-schema">
        <summary>
          {t('insight.events.schema')} (<code>JSON Schema</code>)
        </summary>
        <JsonBlock value={kind.schema} label={t('insight.events.schema_label', { type: kind.type })} />
      </details>
    </article>
  );
}

/** Pretty JSON in a box that scrolls by itself (reachable with the keyboard) instead of widening the page. */
function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
    <section className="json-block" tabIndex={0} aria-label={label}>
      <pre className="code-block">{JSON.stringify(value, null, 2)}</pre>
    </section>
  );
}
