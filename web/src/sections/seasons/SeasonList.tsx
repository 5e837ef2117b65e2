// The Seasons page: every season with its crop, dates and place, and the season templates below.
// Everyone reads; only owners start, change and delete (staff are not offered those at all).
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { useState } from 'react';
import { useAnnounce } from '../../app/announce';
import { useSession } from '../../app/session';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { PageHeading } from '../../ui/PageHeading';
import { Empty, ErrorState, Loading } from '../../ui/States';
import { type Season, useCrops, useDeleteSeason, useSeasons } from './api';
import { formatDay } from './days';
import { TemplatesPanel } from './TemplatesPanel';
import { texts } from './texts';

export default function SeasonList() {
  const { t, plural } = useTexts(texts);
  const { session } = useSession();
  const owner = session?.user.role === 'owner';
  const { started, crop } = useSearch({ strict: false }) as { started?: unknown; crop?: unknown };
  const cropId = Number.isInteger(crop) && Number(crop) > 0 ? Number(crop) : undefined;
  const seasons = useSeasons(cropId);
  const crops = useCrops();
  const navigate = useNavigate();
  const chooseCrop = (value: string) =>
    void navigate({ to: '/seasons', search: value === '' ? {} : { crop: Number(value) }, replace: true });
  const remove = useDeleteSeason();
  const announce = useAnnounce();
  const [deleting, setDeleting] = useState<Season | null>(null);

  const start = owner && (
    <Link className="button primary" to="/seasons/new">
      {t('seasons.start')}
    </Link>
  );

  function confirmDelete() {
    if (!deleting) return;
    const { id, name } = deleting;
    remove.mutate(id, {
      onSuccess: () => {
        announce(t('season.deleted', { name }));
        setDeleting(null);
      },
      onError: (err) => {
        announce(err.message, 'error');
        setDeleting(null);
      },
    });
  }

  return (
    <section className="page seasons-page">
      <div className="page-title">
        <PageHeading>{t('seasons.title')}</PageHeading>
        {start}
      </div>
      <p className="lead">{t('seasons.intro')}</p>

      {crops.data && crops.data.length > 1 && (seasons.data?.length !== 0 || cropId !== undefined) && (
        <div className="field season-filter">
          <label htmlFor="season-crop-filter">{t('seasons.filter_crop')}</label>
          <select
            id="season-crop-filter"
            value={cropId ?? ''}
            onChange={(event) => chooseCrop(event.target.value)}
          >
            <option value="">{t('seasons.all_crops')}</option>
            {crops.data.map((option) => (
              <option key={option.id} value={option.id}>
                {option.name}
              </option>
            ))}
          </select>
        </div>
      )}
      {seasons.data && cropId !== undefined && (
        <p className="result-count" role="status">
          {plural('seasons.count', seasons.data.length)}
        </p>
      )}
      {seasons.isPending && <Loading label={t('seasons.loading')} />}
      {seasons.isError && <ErrorState error={seasons.error} onRetry={() => void seasons.refetch()} />}
      {seasons.data?.length === 0 && cropId !== undefined && (
        <Empty title={t('seasons.empty_crop')}>
          <button type="button" className="button secondary" onClick={() => chooseCrop('')}>
            {t('seasons.all_crops')}
          </button>
        </Empty>
      )}
      {seasons.data?.length === 0 && cropId === undefined && (
        <Empty title={t('seasons.empty_title')}>
          <p>{t(owner ? 'seasons.empty_owner' : 'seasons.empty_staff')}</p>
          {start}
        </Empty>
      )}
      {seasons.data && seasons.data.length > 0 && (
        <table className="data-table seasons-table">
          <caption className="visually-hidden">{t('seasons.list_label')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('col.season')}</th>
              <th scope="col">{t('col.crop')}</th>
              <th scope="col">{t('col.dates')}</th>
              <th scope="col">{t('col.place')}</th>
              <th scope="col">{t('col.status')}</th>
              {owner && <th scope="col">{t('col.actions')}</th>}
            </tr>
          </thead>
          <tbody>
            {seasons.data.map((season) => (
              <SeasonRow
                key={season.id}
                season={season}
                owner={owner}
                justStarted={season.id === Number(started)}
                onDelete={setDeleting}
              />
            ))}
          </tbody>
        </table>
      )}

      <TemplatesPanel owner={owner} />

      {deleting && (
        <ConfirmDialog
          title={t('season.delete_title', { name: deleting.name })}
          confirmLabel={t('season.delete')}
          tone="danger"
          busy={remove.isPending}
          onConfirm={confirmDelete}
          onCancel={() => setDeleting(null)}
        >
          <p>{t('season.delete_body')}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function SeasonRow({
  season,
  owner,
  justStarted,
  onDelete,
}: {
  season: Season;
  owner: boolean;
  justStarted: boolean;
  onDelete: (season: Season) => void;
}) {
  const { t, language } = useTexts(texts);
  const from = formatDay(season.start_date, language);
  const dates = !season.start_date
    ? '—'
    : season.end_date
      ? t('season.from_to', { from, to: formatDay(season.end_date, language) })
      : `${t('season.from', { from })}, ${t('season.no_end')}`;
  const place = [season.farm?.name, season.block?.name].filter(Boolean).join(' · ');
  const statusKey = `season.status.${season.status}`;
  return (
    <tr data-season-id={season.id} className={justStarted ? 'just-started' : undefined}>
      <th scope="row" data-label={t('col.season')}>
        <span className="season-name">{season.name}</span>
        <span className="season-code">{t('season.code', { code: season.code })}</span>
        {season.template_name && (
          <span className="season-template">{t('season.template', { name: season.template_name })}</span>
        )}
      </th>
      <td data-label={t('col.crop')}>{season.crop_name || '—'}</td>
      <td data-label={t('col.dates')}>{dates}</td>
      <td data-label={t('col.place')}>{place || <span className="muted">{t('season.no_place')}</span>}</td>
      <td data-label={t('col.status')}>
        <span className="badge season-status">
          {statusKey === 'season.status.Pending' ? t('season.status.Pending') : season.status}
        </span>
      </td>
      {owner && (
        <td className="row-actions" data-label={t('col.actions')}>
          <div className="season-actions">
            <Link
              className="button small secondary"
              to="/seasons/$id/edit"
              params={{ id: String(season.id) }}
              aria-label={t('season.edit_label', { name: season.name })}
            >
              {t('season.edit')}
            </Link>
            <button
              type="button"
              className="button small danger-outline"
              aria-label={t('season.delete_label', { name: season.name })}
              onClick={() => onDelete(season)}
            >
              {t('season.delete')}
            </button>
          </div>
        </td>
      )}
    </tr>
  );
}
