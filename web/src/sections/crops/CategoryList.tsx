// Product groups (product categories): what kind of crop or livestock a record is, e.g. Fruit
// trees or Poultry, with the group it belongs to and whether it is in use. The farm's groups are
// read whole; search and filter run here.
import { useState } from 'react';
import { useTexts } from '../../app/texts';
import { Empty, ErrorState, Loading } from '../../ui/States';
import { type StatusFilter, useCategories } from './api';
import {
  AddLink,
  DeleteDialog,
  type Deleting,
  ListControls,
  matches,
  RowActions,
  StatusBadge,
  useIsOwner,
} from './Parts';
import { texts } from './texts';

export default function CategoryList() {
  const { t } = useTexts(texts);
  const isOwner = useIsOwner();
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState<StatusFilter>('all');
  const [deleting, setDeleting] = useState<Deleting | null>(null);
  const categories = useCategories();
  const names = new Map((categories.data ?? []).map((r) => [r.id, r.name]));
  const shown = (categories.data ?? []).filter((r) => matches(r.name, r.status === 1, search, status));
  const add = <AddLink tab="categories" />;

  return (
    <>
      {(categories.data?.length ?? 0) > 0 && (
        <ListControls idPrefix="categories" onSearch={setSearch} status={status} onStatus={setStatus} />
      )}

      {categories.isPending && <Loading label={t('categories.loading')} />}
      {categories.isError && !categories.data && (
        <ErrorState error={categories.error} onRetry={() => void categories.refetch()} />
      )}
      {categories.data?.length === 0 && (
        <Empty title={t('categories.empty_title')}>
          <p>{isOwner ? t('categories.empty_body') : t('categories.empty_staff')}</p>
          {isOwner && add}
        </Empty>
      )}
      {categories.data && categories.data.length > 0 && shown.length === 0 && (
        <p className="empty-inline" role="status">
          {search ? t('filter.none_match', { term: search }) : t('filter.none_match_status')}
        </p>
      )}
      {shown.length > 0 && (
        <table className="data-table record-table">
          <caption className="visually-hidden">{t('categories.list_label')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('col.name')}</th>
              <th scope="col">{t('col.parent')}</th>
              <th scope="col">{t('col.description')}</th>
              <th scope="col">{t('col.status')}</th>
              {isOwner && <th scope="col">{t('col.actions')}</th>}
            </tr>
          </thead>
          <tbody>
            {shown.map((category) => (
              <tr key={category.id} className={category.status === 1 ? undefined : 'inactive'}>
                <th scope="row" data-label={t('col.name')}>
                  <span className="record-name">{category.name}</span>
                  {category.code && (
                    <span className="description">{t('crops.code_sku', { code: category.code })}</span>
                  )}
                </th>
                <td data-label={t('col.parent')}>
                  {category.parent_id ? (
                    (names.get(category.parent_id) ?? '—')
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td data-label={t('col.description')}>
                  {category.description ? (
                    <span className="clamp">{category.description}</span>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td data-label={t('col.status')}>
                  <StatusBadge active={category.status === 1} />
                </td>
                {isOwner && (
                  <td data-label={t('col.actions')} className="row-actions">
                    <RowActions
                      editTo={`/crops/categories/${category.id}/edit`}
                      name={category.name}
                      onDelete={() => setDeleting({ kind: 'category', id: category.id, name: category.name })}
                    />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deleting && <DeleteDialog deleting={deleting} onClose={() => setDeleting(null)} />}
    </>
  );
}
