// Varieties (crop types): each with its picture, the variety it belongs to and its notes. The
// farm's varieties are read whole and searched here; they have no active/inactive state.
import { useState } from 'react';
import { useTexts } from '../../app/texts';
import { Empty, ErrorState, Loading } from '../../ui/States';
import { useCropTypes } from './api';
import {
  AddLink,
  DeleteDialog,
  type Deleting,
  ListControls,
  matches,
  NameWithPicture,
  RowActions,
  useIsOwner,
} from './Parts';
import { texts } from './texts';

export default function CropTypeList() {
  const { t } = useTexts(texts);
  const isOwner = useIsOwner();
  const [search, setSearch] = useState('');
  const [deleting, setDeleting] = useState<Deleting | null>(null);
  const types = useCropTypes();
  const names = new Map((types.data ?? []).map((r) => [r.id, r.name]));
  const shown = (types.data ?? []).filter((r) => matches(r.name, null, search, 'all'));
  const add = <AddLink tab="types" />;

  return (
    <>
      {(types.data?.length ?? 0) > 0 && (
        <ListControls idPrefix="types" onSearch={setSearch} note={t('types.no_status')} />
      )}

      {types.isPending && <Loading label={t('types.loading')} />}
      {types.isError && !types.data && (
        <ErrorState error={types.error} onRetry={() => void types.refetch()} />
      )}
      {types.data?.length === 0 && (
        <Empty title={t('types.empty_title')}>
          <p>{isOwner ? t('types.empty_body') : t('types.empty_staff')}</p>
          {isOwner && add}
        </Empty>
      )}
      {types.data && types.data.length > 0 && shown.length === 0 && (
        <p className="empty-inline" role="status">
          {t('filter.none_match', { term: search })}
        </p>
      )}
      {shown.length > 0 && (
        <table className="data-table record-table">
          <caption className="visually-hidden">{t('types.list_label')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('col.name')}</th>
              <th scope="col">{t('col.parent')}</th>
              <th scope="col">{t('col.description')}</th>
              {isOwner && <th scope="col">{t('col.actions')}</th>}
            </tr>
          </thead>
          <tbody>
            {shown.map((type) => (
              <tr key={type.id}>
                <th scope="row" data-label={t('col.name')}>
                  <NameWithPicture address={type.images} name={type.name}>
                    <span className="record-name">{type.name}</span>
                  </NameWithPicture>
                </th>
                <td data-label={t('col.parent')}>
                  {type.parent_id ? (names.get(type.parent_id) ?? '—') : <span className="muted">—</span>}
                </td>
                <td data-label={t('col.description')}>
                  {type.description ? (
                    <span className="clamp">{type.description}</span>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                {isOwner && (
                  <td data-label={t('col.actions')} className="row-actions">
                    <RowActions
                      editTo={`/crops/types/${type.id}/edit`}
                      name={type.name}
                      onDelete={() => setDeleting({ kind: 'type', id: type.id, name: type.name })}
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
