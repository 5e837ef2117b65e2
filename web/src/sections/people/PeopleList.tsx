// The People page (owners): everyone who can sign in, with their role; each name opens the
// person's page (role, new password, removal). The list looks again every 30 seconds. Below it,
// the way to the keys for programs (API keys).
import { Link } from '@tanstack/react-router';
import { useSession } from '../../app/session';
import { useTexts } from '../../app/texts';
import { PageHeading } from '../../ui/PageHeading';
import { Empty, ErrorState, Loading } from '../../ui/States';
import { type Person, usePeople } from './api';
import { RoleBadge } from './RoleBadge';
import { texts } from './texts';

export default function PeopleList() {
  const { t } = useTexts(texts);
  const { session } = useSession();
  const people = usePeople();
  return (
    <section className="page people">
      <div className="page-title">
        <PageHeading>{t('people.title')}</PageHeading>
        <Link className="button primary" to="/people/new">
          {t('people.add')}
        </Link>
      </div>
      <p className="lead">{t('people.intro', { farm: session.tenant.name })}</p>

      {people.isPending && <Loading label={t('people.loading')} />}
      {people.isError && !people.data && (
        <ErrorState error={people.error} onRetry={() => void people.refetch()} />
      )}
      {people.data?.length === 1 && (
        <Empty title={t('people.only_you')}>
          <p>{t('people.only_you_body')}</p>
          <Link className="button primary" to="/people/new">
            {t('people.add')}
          </Link>
        </Empty>
      )}
      {people.data && (
        <table className="data-table people-table">
          <caption className="visually-hidden">{t('people.list_label')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('col.name')}</th>
              <th scope="col">{t('col.username')}</th>
              <th scope="col">{t('col.role')}</th>
            </tr>
          </thead>
          <tbody>
            {people.data.map((person) => (
              <PersonRow key={person.id} person={person} self={person.id === session.user.id} />
            ))}
          </tbody>
        </table>
      )}

      <section className="panel person-panel keys-card" aria-labelledby="keys-card-heading">
        <h2 id="keys-card-heading">{t('keys.card_title')}</h2>
        <p className="muted">{t('keys.card_body')}</p>
        <Link className="button secondary" to="/people/keys">
          {t('keys.card_link')}
        </Link>
      </section>
    </section>
  );
}

function PersonRow({ person, self }: { person: Person; self: boolean }) {
  const { t } = useTexts(texts);
  return (
    <tr>
      <th scope="row">
        <Link to="/people/$id" params={{ id: String(person.id) }} className="person-link">
          {person.name || person.username}
        </Link>
        {self && <span className="muted"> ({t('people.you')})</span>}
      </th>
      <td data-label={t('col.username')}>
        <span className="username">{person.username}</span>
      </td>
      <td data-label={t('col.role')}>
        <RoleBadge role={person.role} />
      </td>
    </tr>
  );
}
