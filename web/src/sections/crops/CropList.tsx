// Crops & livestock: every crop or animal with its picture, group, variety, price and status,
// searched by name and filtered by status on the API. Owners add, edit and delete; staff read.
import { useState } from 'react';
import { useTexts } from '../../app/texts';
import { formatNumber } from '../../ui/format';
import { Empty, ErrorState, Loading } from '../../ui/States';
import { type CropListItem, type StatusFilter, useCategories, useCrops, useCropTypes } from './api';
import {
  AddLink,
  DeleteDialog,
  type Deleting,
  ListControls,
  NameWithPicture,
  RowActions,
  StatusBadge,
  useIsOwner,
} from './Parts';
import { texts } from './texts';

export default function CropList() {
  const { t } = useTexts(texts);
  const isOwner = useIsOwner();
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<StatusFilter>('all');
  const [group, setGroup] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<Deleting | null>(null);
  const crops = useCrops(search, status, group);
  const types = useCropTypes();
  const categories = useCategories();
  const typeName = new Map((types.data ?? []).map((r) => [r.id, r.name]));
  const categoryName = new Map((categories.data ?? []).map((r) => [r.id, r.name]));
  const filtered = search !== '' || status !== 'all' || group !== null;
  const add = <AddLink tab="crops" />;
  const page = crops.data;

  return (
    <>
      {/* Nothing to search in an empty list: its empty state says what to do first. */}
      {(filtered || (page?.items.length ?? 0) > 0) && (
        <ListControls idPrefix="crops" onSearch={setSearch} status={status} onStatus={setStatus}>
          {(categories.data?.length ?? 0) > 0 && (
            <div className="field">
              <label htmlFor="crops-group">{t('filter.group')}</label>
              <select
                id="crops-group"
                value={group === null ? '' : String(group)}
                onChange={(event) => setGroup(event.target.value ? Number(event.target.value) : null)}
              >
                <option value="">{t('filter.all_groups')}</option>
                {[...(categories.data ?? [])]
                  .sort((a, b) => a.name.localeCompare(b.name))
                  .map((category) => (
                    <option key={category.id} value={String(category.id)}>
                      {category.name}
                    </option>
                  ))}
              </select>
            </div>
          )}
        </ListControls>
      )}

      {crops.isPending && <Loading label={t('crops.loading')} />}
      {crops.isError && !page && <ErrorState error={crops.error} onRetry={() => void crops.refetch()} />}
      {page?.items.length === 0 &&
        (filtered ? (
          <p className="empty-inline" role="status">
            {search ? t('filter.none_match', { term: search }) : t('filter.none_match_status')}
          </p>
        ) : (
          <Empty title={t('crops.empty_title')}>
            <p>{isOwner ? t('crops.empty_body') : t('crops.empty_staff')}</p>
            {isOwner && add}
          </Empty>
        ))}
      {page && page.items.length > 0 && (
        <>
          <table className="data-table record-table" aria-busy={crops.isFetching}>
            <caption className="visually-hidden">{t('crops.list_label')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('col.name')}</th>
                <th scope="col">{t('col.group')}</th>
                <th scope="col">{t('col.variety')}</th>
                <th scope="col">{t('col.price')}</th>
                <th scope="col">{t('col.status')}</th>
                {isOwner && <th scope="col">{t('col.actions')}</th>}
              </tr>
            </thead>
            <tbody>
              {page.items.map((crop) => (
                <CropRow
                  key={crop.id}
                  crop={crop}
                  group={crop.category_id === null ? null : (categoryName.get(crop.category_id) ?? null)}
                  variety={crop.crop_type === null ? null : (typeName.get(crop.crop_type) ?? null)}
                  onDelete={
                    isOwner ? () => setDeleting({ kind: 'crop', id: crop.id, name: crop.name }) : null
                  }
                />
              ))}
            </tbody>
          </table>
          {page.total !== null && page.total > page.items.length && (
            <p className="hint">{t('list.more', { shown: page.items.length, total: page.total })}</p>
          )}
        </>
      )}
      {deleting && <DeleteDialog deleting={deleting} onClose={() => setDeleting(null)} />}
    </>
  );
}

function CropRow({
  crop,
  group,
  variety,
  onDelete,
}: {
  crop: CropListItem;
  group: string | null;
  variety: string | null;
  onDelete: (() => void) | null;
}) {
  const { t, language } = useTexts(texts);
  const none = <span className="muted">{t('crops.none')}</span>;
  return (
    <tr className={crop.status ? undefined : 'inactive'}>
      <th scope="row" data-label={t('col.name')}>
        <NameWithPicture address={crop.image} name={crop.name}>
          <span className="record-name">{crop.name}</span>
          {(crop.code || crop.sku) && (
            <span className="description">
              {[
                crop.code && t('crops.code_sku', { code: crop.code }),
                crop.sku && t('crops.sku', { sku: crop.sku }),
              ]
                .filter(Boolean)
                .join(' · ')}
            </span>
          )}
          {crop.description && <span className="description clamp">{crop.description}</span>}
        </NameWithPicture>
      </th>
      <td data-label={t('col.group')}>{group ?? none}</td>
      <td data-label={t('col.variety')}>{variety ?? none}</td>
      <td data-label={t('col.price')}>{formatNumber(crop.price, language)}</td>
      <td data-label={t('col.status')}>
        <StatusBadge active={crop.status} />
      </td>
      {onDelete && (
        <td data-label={t('col.actions')} className="row-actions">
          <RowActions editTo={`/crops/${crop.id}/edit`} name={crop.name} onDelete={onDelete} />
        </td>
      )}
    </tr>
  );
}
