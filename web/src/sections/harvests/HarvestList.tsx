// The Harvests page: the batches recorded (newest first, with their status in words; owners
// confirm the waiting ones) and the totals by crop and by parcel over a chosen period. Both look
// again every 15 seconds while the page is open.
import { Link } from '@tanstack/react-router';
import { type RefObject, useId, useMemo, useRef, useState } from 'react';
import { SessionExpiredError } from '../../api/client';
import { useAnnounce } from '../../app/announce';
import { useSession } from '../../app/session';
import { useTexts } from '../../app/texts';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { formatDate, formatNumber, formatTime } from '../../ui/format';
import { PageHeading } from '../../ui/PageHeading';
import { describeError, Empty, ErrorState, Loading } from '../../ui/States';
import {
  type Batch,
  type BatchStatus,
  type Total,
  useBatches,
  useConfirmBatch,
  useNames,
  useTotals,
} from './api';
import { PRESETS, type Preset, periodBounds, today } from './period';
import { texts } from './texts';

const PAGE = 25;
const MAX = 1000;

type Filter = BatchStatus | 'all';
const FILTERS: readonly Filter[] = ['all', 'declared', 'confirmed'];

function useKg() {
  const { language } = useTexts(texts);
  return (kg: number) => formatNumber(kg, language, { maximumFractionDigits: 3 });
}

export default function HarvestList() {
  const { t } = useTexts(texts);
  const { session } = useSession();
  const owner = session.user.role === 'owner';
  return (
    <section className="page harvests">
      <div className="page-title">
        <PageHeading>{t('harvests.title')}</PageHeading>
        <Link className="button primary" to="/harvests/new">
          {t('harvests.declare')}
        </Link>
      </div>
      <p className="lead">{t(owner ? 'harvests.intro_owner' : 'harvests.intro_staff')}</p>
      <Batches owner={owner} />
      <Totals />
    </section>
  );
}

function Batches({ owner }: { owner: boolean }) {
  const { t } = useTexts(texts);
  const [filter, setFilter] = useState<Filter>('all');
  const [limit, setLimit] = useState(PAGE);
  const batches = useBatches(filter, limit);
  const [confirming, setConfirming] = useState<Batch | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const name = useId();

  const filterLabel = (f: Filter) =>
    t(
      f === 'all'
        ? 'batches.filter_all'
        : f === 'declared'
          ? 'batches.filter_declared'
          : 'batches.filter_confirmed',
    );
  const rows = batches.data;
  const more = rows !== undefined && rows.length >= limit && limit < MAX;

  return (
    <section className="panel" aria-labelledby="batches-heading">
      <div className="batches-head">
        <h2 id="batches-heading" ref={headingRef} tabIndex={-1}>
          {t('batches.title')}
        </h2>
        <fieldset className="segmented">
          <legend className="visually-hidden">{t('batches.show')}</legend>
          {FILTERS.map((f) => (
            <label key={f} className={filter === f ? 'selected' : undefined}>
              <input
                type="radio"
                name={name}
                value={f}
                checked={filter === f}
                onChange={() => {
                  setFilter(f);
                  setLimit(PAGE);
                }}
              />
              <span>{filterLabel(f)}</span>
            </label>
          ))}
        </fieldset>
      </div>

      {batches.isPending && <Loading label={t('batches.loading')} />}
      {batches.isError && !rows && (
        <ErrorState error={batches.error} onRetry={() => void batches.refetch()} />
      )}
      {rows?.length === 0 &&
        (filter === 'all' ? (
          <Empty title={t('batches.empty_title')}>
            <p>{t('batches.empty_body')}</p>
            <Link className="button primary" to="/harvests/new">
              {t('harvests.declare')}
            </Link>
          </Empty>
        ) : (
          <p className="empty-line">
            {t(filter === 'declared' ? 'batches.empty_declared' : 'batches.empty_confirmed')}
          </p>
        ))}
      {rows && rows.length > 0 && (
        <table className="data-table batches">
          <caption className="visually-hidden">{t('batches.list_label')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('col.crop')}</th>
              <th scope="col">{t('col.parcel')}</th>
              <th scope="col" className="number">
                {t('col.weight')}
              </th>
              <th scope="col">{t('col.harvested')}</th>
              <th scope="col">{t('col.status')}</th>
              {owner && <th scope="col">{t('col.actions')}</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((batch) => (
              <BatchRow key={batch.id} batch={batch} owner={owner} onConfirm={() => setConfirming(batch)} />
            ))}
          </tbody>
        </table>
      )}
      {more && (
        <p>
          <button
            type="button"
            className="button secondary"
            aria-disabled={batches.isFetching || undefined}
            onClick={() => !batches.isFetching && setLimit((l) => Math.min(l + PAGE * 2, MAX))}
          >
            {batches.isFetching ? t('batches.more_loading') : t('batches.more')}
          </button>
        </p>
      )}
      {confirming && (
        <ConfirmBatch batch={confirming} headingRef={headingRef} onClose={() => setConfirming(null)} />
      )}
    </section>
  );
}

function useBatchWords() {
  const { t } = useTexts(texts);
  const names = useNames();
  const kg = useKg();
  return (batch: Batch) => {
    const parcel = names.parcel(batch.parcel_id);
    return {
      kg: kg(batch.quantity_kg),
      crop: names.cropType(batch.crop_type_id)?.name ?? t('batch.unknown'),
      parcel: parcel ? parcel.name : t('batch.unknown'),
      parcelCode: parcel?.code ?? '',
      by: names.person(batch.declared_by),
    };
  };
}

function BatchRow({ batch, owner, onConfirm }: { batch: Batch; owner: boolean; onConfirm: () => void }) {
  const { t, language } = useTexts(texts);
  const words = useBatchWords()(batch);
  const waiting = batch.status === 'declared';
  return (
    <tr>
      <th scope="row" id={`batch-${batch.id}`} tabIndex={-1}>
        {words.crop}
        {batch.notes && <span className="description">{batch.notes}</span>}
      </th>
      <td data-label={t('col.parcel')}>
        {words.parcel}
        {words.parcelCode && words.parcelCode !== words.parcel && (
          <span className="description">{words.parcelCode}</span>
        )}
      </td>
      <td data-label={t('col.weight')} className="number">
        <strong>{t('batch.kg', { kg: words.kg })}</strong>
      </td>
      <td data-label={t('col.harvested')}>
        <time dateTime={batch.harvested_at}>{formatDate(batch.harvested_at, language)}</time>
        {words.by && (
          <span className="description">{t('batch.by', { name: words.by.name || words.by.username })}</span>
        )}
      </td>
      <td data-label={t('col.status')}>
        <span className={`badge ${waiting ? 'badge-waiting' : 'badge-confirmed'}`}>
          {t(waiting ? 'status.declared' : 'status.confirmed')}
        </span>
        {batch.confirmed_at && (
          <time className="when" dateTime={batch.confirmed_at}>
            {t('batch.confirmed_on', { date: formatDate(batch.confirmed_at, language) })}
          </time>
        )}
      </td>
      {owner && (
        <td className="row-actions">
          {waiting && (
            <button
              type="button"
              className="button primary"
              aria-label={t('batch.confirm_label', { kg: words.kg, crop: words.crop, parcel: words.parcel })}
              onClick={onConfirm}
            >
              {t('batch.confirm')}
            </button>
          )}
        </td>
      )}
    </tr>
  );
}

/** The owner confirms a batch: what it is, what confirming does; then the focus goes to the batch. */
function ConfirmBatch({
  batch,
  headingRef,
  onClose,
}: {
  batch: Batch;
  headingRef: RefObject<HTMLHeadingElement | null>;
  onClose: () => void;
}) {
  const { t, language } = useTexts(texts);
  const announce = useAnnounce();
  const confirm = useConfirmBatch();
  const words = useBatchWords()(batch);
  // The Confirm button goes once the batch is confirmed: the focus goes to the batch's row (or,
  // when the list no longer shows it, to the list's heading).
  const fallback = useMemo<RefObject<HTMLElement | null>>(
    () => ({
      get current() {
        return document.getElementById(`batch-${batch.id}`) ?? headingRef.current;
      },
    }),
    [batch.id, headingRef],
  );
  return (
    <ConfirmDialog
      title={t('confirm.title')}
      confirmLabel={confirm.isPending ? t('confirm.busy') : t('confirm.button')}
      busy={confirm.isPending}
      fallbackFocus={fallback}
      onCancel={onClose}
      onConfirm={() =>
        confirm.mutate(batch.id, {
          onSuccess: () => {
            announce(t('confirm.done', { kg: words.kg, crop: words.crop, parcel: words.parcel }));
            onClose();
          },
          onError: (err) => {
            if (!(err instanceof SessionExpiredError)) {
              announce(t('confirm.failed', { reason: describeError(err, t) }), 'error');
            }
            onClose();
          },
        })
      }
    >
      <p>
        <strong>
          {t('confirm.what', {
            kg: words.kg,
            crop: words.crop,
            parcel: words.parcel,
            date: formatTime(batch.harvested_at, language, 'minute'),
          })}
        </strong>
      </p>
      <p>{t('confirm.effect')}</p>
    </ConfirmDialog>
  );
}

function Totals() {
  const { t } = useTexts(texts);
  const [preset, setPreset] = useState<Preset>('30d');
  const [custom, setCustom] = useState(() => ({ from: `${today().slice(0, 8)}01`, to: today() }));
  const bounds = periodBounds(preset, custom);
  const presetLabel = (p: Preset) => t(`period.${p}` as const);
  return (
    <section className="panel" aria-labelledby="totals-heading">
      <h2 id="totals-heading">{t('totals.title')}</h2>
      <p className="muted">{t('totals.intro')}</p>
      <div className="period">
        <div className="field">
          <label htmlFor="totals-period">{t('totals.period')}</label>
          <select
            id="totals-period"
            value={preset}
            onChange={(event) => setPreset(event.target.value as Preset)}
          >
            {PRESETS.map((p) => (
              <option key={p} value={p}>
                {presetLabel(p)}
              </option>
            ))}
          </select>
        </div>
        {preset === 'custom' && (
          <>
            <div className="field">
              <label htmlFor="totals-from">{t('period.from')}</label>
              <input
                id="totals-from"
                type="date"
                value={custom.from}
                max={custom.to || undefined}
                onChange={(event) => setCustom((c) => ({ ...c, from: event.target.value }))}
              />
            </div>
            <div className="field">
              <label htmlFor="totals-to">{t('period.to')}</label>
              <input
                id="totals-to"
                type="date"
                value={custom.to}
                min={custom.from || undefined}
                onChange={(event) => setCustom((c) => ({ ...c, to: event.target.value }))}
              />
            </div>
          </>
        )}
      </div>
      <div className="totals">
        <TotalsTable by="crop_type" from={bounds.from} to={bounds.to} />
        <TotalsTable by="parcel" from={bounds.from} to={bounds.to} />
      </div>
    </section>
  );
}

function TotalsTable({ by, from, to }: { by: 'crop_type' | 'parcel'; from?: string; to?: string }) {
  const { t } = useTexts(texts);
  const kg = useKg();
  const totals = useTotals(by, from, to);
  const title = t(by === 'crop_type' ? 'totals.by_crop' : 'totals.by_parcel');
  const id = `totals-${by}`;
  const rows: Total[] | undefined = totals.data;
  const sum = rows?.reduce((s, r) => s + r.quantity_kg, 0) ?? 0;
  return (
    <section className="totals-card" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {totals.isPending && <Loading label={t('totals.loading')} />}
      {totals.isError && !rows && <ErrorState error={totals.error} onRetry={() => void totals.refetch()} />}
      {rows?.length === 0 && <p className="empty-line">{t('totals.empty')}</p>}
      {rows && rows.length > 0 && (
        <table className="totals-table" aria-labelledby={id}>
          <thead>
            <tr>
              <th scope="col">{t(by === 'crop_type' ? 'col.crop' : 'col.parcel')}</th>
              <th scope="col" className="number">
                {t('col.weight')}
              </th>
              <th scope="col" className="number">
                {t('totals.col_batches')}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <th scope="row">{row.name}</th>
                <td className="number">{t('batch.kg', { kg: kg(row.quantity_kg) })}</td>
                <td className="number">{row.batch_count}</td>
              </tr>
            ))}
          </tbody>
          {rows.length > 1 && (
            <tfoot>
              <tr>
                <th scope="row" colSpan={3}>
                  {t('totals.sum', { kg: kg(Math.round(sum * 1000) / 1000) })}
                </th>
              </tr>
            </tfoot>
          )}
        </table>
      )}
    </section>
  );
}
