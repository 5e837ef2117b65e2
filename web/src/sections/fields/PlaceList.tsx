// One tab of a farm's page: its blocks, zones or parcels as cards. Owners add, edit and delete
// them; a delete is confirmed first and, when the API refuses it (a block that still holds
// parcels), its answer is said in plain words. After a delete the focus goes to the list's heading.
import type { UseInfiniteQueryResult } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { formatNumber } from '../../ui/format';
import { describeError, ErrorState, Loading } from '../../ui/States';
import {
  type Block,
  type Farm,
  flatten,
  type Kind,
  type Page,
  type Parcel,
  useDeletePlace,
  type Zone,
} from './api';
import { kindText, ShowMore, useIsOwner } from './parts';
import { texts } from './texts';

type AnyPlace = Block | Parcel;

interface PlaceListProps {
  kind: Kind;
  farm: Farm;
  list: UseInfiniteQueryResult<{ pages: Page<AnyPlace>[] }>;
  /** The farm's blocks and zones, to name a parcel's. */
  blocks: Block[];
  zones: Zone[];
}

export function PlaceList({ kind, farm, list, blocks, zones }: PlaceListProps) {
  const { t } = useTexts(texts);
  const owner = useIsOwner();
  const announce = useAnnounce();
  const remove = useDeletePlace(kind);
  const [deleting, setDeleting] = useState<AnyPlace | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const { items, total } = flatten(list.data);
  const farmId = String(farm.id);

  const add = owner && (
    <Link className="button primary" to="/fields/$farmId/$kind/new" params={{ farmId, kind }}>
      {t(kindText(kind, 'add'))}
    </Link>
  );

  function onDelete(place: AnyPlace) {
    remove.mutate(place.id, {
      onSuccess: () => {
        setDeleting(null);
        announce(t(kindText(kind, 'deleted'), { name: place.name }));
      },
      onError: (err) => {
        setDeleting(null);
        if (!(err instanceof SessionExpiredError)) announce(describeError(err, t), 'error');
      },
    });
  }

  return (
    <section className="place-panel" aria-labelledby="place-list-title">
      <div className="panel-title">
        <h2 id="place-list-title" ref={headingRef} tabIndex={-1}>
          {t(`kind.${kind}`)}
        </h2>
        {items.length > 0 && add}
      </div>

      {list.isPending && <Loading label={t(kindText(kind, 'loading'))} />}
      {list.isError && !list.data && <ErrorState error={list.error} onRetry={() => void list.refetch()} />}
      {list.data && items.length === 0 && (
        <div className="empty place-empty">
          <p className="empty-title">{t(kindText(kind, 'empty'))}</p>
          <p className="muted">{t(kindText(kind, 'empty_hint'))}</p>
          {add}
        </div>
      )}
      {items.length > 0 && (
        <ul className="place-cards" aria-labelledby="place-list-title" ref={listRef}>
          {items.map((place) => (
            <li key={place.id} className="place-card">
              <div className="place-main">
                <h3 tabIndex={-1} data-focus-target>
                  {place.name}
                </h3>
                {kind === 'parcels' && <ParcelFacts parcel={place as Parcel} blocks={blocks} zones={zones} />}
              </div>
              {owner && (
                <div className="place-actions">
                  <Link
                    className="button secondary"
                    to="/fields/$farmId/$kind/$id"
                    params={{ farmId, kind, id: String(place.id) }}
                    aria-label={t('place.edit_label', { name: place.name })}
                  >
                    {t('place.edit')}
                  </Link>
                  <button
                    type="button"
                    className="button danger-outline"
                    aria-label={t('place.delete_label', { name: place.name })}
                    onClick={() => setDeleting(place)}
                  >
                    {t('place.delete')}
                  </button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {list.hasNextPage && (
        <ShowMore
          label={t(kindText(kind, 'show_more'))}
          shown={items.length}
          total={total}
          loading={list.isFetchingNextPage}
          onMore={() => list.fetchNextPage()}
          listRef={listRef}
        />
      )}

      {deleting && (
        <ConfirmDialog
          title={t(kindText(kind, 'delete_title'))}
          confirmLabel={t('place.delete_confirm')}
          tone="danger"
          busy={remove.isPending}
          fallbackFocus={headingRef}
          onConfirm={() => onDelete(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>{t(kindText(kind, 'delete_body'), { name: deleting.name })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function ParcelFacts({ parcel, blocks, zones }: { parcel: Parcel; blocks: Block[]; zones: Zone[] }) {
  const { t, language } = useTexts(texts);
  const nameOf = (list: Block[], id: number | null) =>
    id === null ? t('parcel.none') : (list.find((each) => each.id === id)?.name ?? '…');
  const facts: [string, string][] = [
    [t('parcel.code'), parcel.code],
    [
      t('parcel.area'),
      parcel.area === null ? '' : t('parcel.area_value', { n: formatNumber(parcel.area, language) }),
    ],
    [t('parcel.block'), nameOf(blocks, parcel.block_id)],
    [t('parcel.zone'), nameOf(zones, parcel.zone_id)],
  ];
  return (
    <dl className="place-facts">
      {facts
        .filter(([, value]) => value)
        .map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
    </dl>
  );
}
