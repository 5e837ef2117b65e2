// A farm's page: what the farm is (address, size, notes), then its blocks, zones and parcels in
// three tabs (the tab is in the address: ?show=zones). Owners edit and delete the farm and add,
// edit and delete what is inside it; staff read. A delete the API refuses (a farm that still holds
// blocks) is said in the API's own plain words, and nothing is lost.
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { PageHeading } from '../../ui/PageHeading';
import { describeError, ErrorState, Loading } from '../../ui/States';
import {
  type Farm,
  flatten,
  isKind,
  KINDS,
  type Kind,
  useDeleteFarm,
  useFarm,
  useForgetFarm,
  usePlaces,
} from './api';
import { PlaceList } from './PlaceList';
import { farmSearch, useIsOwner } from './parts';
import { texts } from './texts';

export default function FarmPage() {
  const { farmId: rawId } = useParams({ strict: false }) as { farmId: string };
  const search = useSearch({ strict: false }) as { show?: unknown };
  const kind: Kind = isKind(search.show) ? search.show : 'blocks';
  const farmId = Number(rawId);
  const { t } = useTexts(texts);
  const owner = useIsOwner();
  const announce = useAnnounce();
  const navigate = useNavigate();
  const remove = useDeleteFarm();
  const forget = useForgetFarm();
  const [confirming, setConfirming] = useState(false);
  const active = remove.isIdle || remove.isError;
  const farm = useFarm(farmId, { active });
  // The three lists are read at once: the tabs show how many each holds.
  const lists = {
    blocks: usePlaces('blocks', farmId, { enabled: active }),
    zones: usePlaces('zones', farmId, { enabled: active }),
    parcels: usePlaces('parcels', farmId, { enabled: active }),
  };

  const back = (
    <Link className="back" to="/fields">
      ← {t('farm.back')}
    </Link>
  );

  const data = farm.data;
  if (!data) {
    return (
      <section className="page fields-page">
        {back}
        {farm.isError ? (
          <>
            <PageHeading>{t('fields.title')}</PageHeading>
            <ErrorState
              error={farm.error}
              notFound={t('farm.not_found')}
              onRetry={() => void farm.refetch()}
            />
          </>
        ) : (
          <Loading label={t('farm.loading')} />
        )}
      </section>
    );
  }

  function onDelete(target: Farm) {
    remove.mutate(target.id, {
      onSuccess: () => {
        setConfirming(false);
        announce(t('farm.deleted', { name: target.name }));
        void navigate({ to: '/fields' }).then(() => forget(target.id));
      },
      onError: (err) => {
        setConfirming(false);
        // A farm that still holds blocks, zones or parcels: the API says what is left.
        if (!(err instanceof SessionExpiredError)) announce(describeError(err, t), 'error');
      },
    });
  }

  return (
    <section className="page fields-page">
      {back}
      <div className="page-title">
        <PageHeading>{data.name}</PageHeading>
        {owner && (
          <div className="toolbar">
            <Link className="button secondary" to="/fields/$farmId/edit" params={{ farmId: String(data.id) }}>
              {t('farm.edit')}
            </Link>
            <button type="button" className="button danger-outline" onClick={() => setConfirming(true)}>
              {t('farm.delete')}
            </button>
          </div>
        )}
      </div>
      {farm.isError && (
        <ErrorState error={farm.error} notFound={t('farm.not_found')} onRetry={() => void farm.refetch()} />
      )}

      <FarmFacts farm={data} />

      <nav className="place-tabs" aria-label={t('farm.places_label')}>
        <ul>
          {KINDS.map((each) => {
            const { items, total } = flatten(lists[each].data);
            const count = lists[each].data ? (total ?? items.length) : undefined;
            const label = t(`kind.${each}`);
            return (
              <li key={each}>
                <Link
                  to="/fields/$farmId"
                  params={{ farmId: String(data.id) }}
                  search={farmSearch(each)}
                  activeOptions={{ exact: true, includeSearch: true }}
                  aria-current={each === kind ? 'page' : undefined}
                  className={each === kind ? 'tab current' : 'tab'}
                  replace
                  resetScroll={false}
                >
                  {count === undefined ? label : t('kind.count', { label, n: String(count) })}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>

      <PlaceList
        key={kind}
        kind={kind}
        farm={data}
        list={lists[kind]}
        blocks={flatten(lists.blocks.data).items}
        zones={flatten(lists.zones.data).items}
      />

      {confirming && (
        <ConfirmDialog
          title={t('farm.delete_title')}
          confirmLabel={t('farm.delete_confirm')}
          tone="danger"
          busy={remove.isPending}
          onConfirm={() => onDelete(data)}
          onCancel={() => setConfirming(false)}
        >
          <p>{t('farm.delete_body', { name: data.name })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function FarmFacts({ farm }: { farm: Farm }) {
  const { t } = useTexts(texts);
  const location = farm.lat && farm.lng ? `${farm.lat}, ${farm.lng}` : '';
  const facts: [string, string][] = [
    [t('farm.address'), farm.address],
    [t('farm.surface'), farm.surface],
    [t('farm.ownership'), farm.ownership],
    [t('farm.location'), location],
    [t('farm.description'), farm.description],
  ];
  const shown = facts.filter(([, value]) => value);
  return (
    <section className="panel settings farm-facts" aria-labelledby="farm-facts-title">
      <h2 id="farm-facts-title">{t('farm.details')}</h2>
      {shown.length === 0 ? (
        <p className="muted">{t('farm.no_details')}</p>
      ) : (
        <dl className="facts">
          {shown.map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
