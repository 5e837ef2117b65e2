// The Fields page: every farm as a card (name, address, size); a card opens the farm's page with
// its blocks, zones and parcels. Owners add farms here. Long lists come 30 at a time.
import { Link } from '@tanstack/react-router';
import { useRef } from 'react';
import { useTexts } from '../../app/texts';
import { PageHeading } from '../../ui/PageHeading';
import { Empty, ErrorState, Loading } from '../../ui/States';
import { type Farm, flatten, useFarms } from './api';
import { ShowMore, useIsOwner } from './parts';
import { texts } from './texts';

export default function FarmList() {
  const { t } = useTexts(texts);
  const owner = useIsOwner();
  const farms = useFarms();
  const listRef = useRef<HTMLUListElement>(null);
  const { items, total } = flatten(farms.data);
  const add = owner && (
    <Link className="button primary" to="/fields/new">
      {t('farm.add')}
    </Link>
  );

  return (
    <section className="page fields-page">
      <div className="page-title">
        <PageHeading>{t('fields.title')}</PageHeading>
        {add}
      </div>
      <p className="lead">{t(owner ? 'fields.intro' : 'fields.intro_staff')}</p>

      {farms.isPending && <Loading label={t('fields.loading')} />}
      {farms.isError && !farms.data && (
        <ErrorState error={farms.error} onRetry={() => void farms.refetch()} />
      )}
      {farms.data && items.length === 0 && (
        <Empty title={t('fields.empty_title')}>
          <p>{t(owner ? 'fields.empty_body' : 'fields.empty_staff')}</p>
          {add}
        </Empty>
      )}
      {items.length > 0 && (
        <>
          <ul className="farm-cards" aria-label={t('fields.list_label')} ref={listRef}>
            {items.map((farm) => (
              <FarmCard key={farm.id} farm={farm} />
            ))}
          </ul>
          {farms.hasNextPage && (
            <ShowMore
              label={t('fields.show_more')}
              shown={items.length}
              total={total}
              loading={farms.isFetchingNextPage}
              onMore={() => farms.fetchNextPage()}
              listRef={listRef}
            />
          )}
        </>
      )}
    </section>
  );
}

function FarmCard({ farm }: { farm: Farm }) {
  const { t } = useTexts(texts);
  const facts = [farm.surface, farm.ownership].filter(Boolean).join(' · ');
  return (
    <li className="farm-card">
      <h2>
        <Link to="/fields/$farmId" params={{ farmId: String(farm.id) }} data-focus-target>
          {farm.name}
        </Link>
      </h2>
      {farm.address && <p className="farm-address">{farm.address}</p>}
      {facts && <p className="muted">{facts}</p>}
      {!farm.address && !facts && <p className="muted">{t('farm.no_details')}</p>}
    </li>
  );
}
