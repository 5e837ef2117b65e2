// How an endpoint's deliveries went over the last 24 hours or 7 days (whole hours, from the start the
// answer gives): counts by outcome, the share delivered, how long the receiver takes to answer, and
// the last success and failure. Polled.
import { useId, useState } from 'react';
import type { Language } from '../../app/i18n';
import { useTexts } from '../../app/texts';
import { formatNumber, formatTime } from '../../ui/format';
import { ErrorState } from '../../ui/States';
import { type StatsWindow, useEndpointStats } from './api';
import { texts } from './texts';

const WINDOWS: readonly StatsWindow[] = ['24h', '7d'];

/** A share of finished deliveries as a whole percentage that never rounds a failure away (99.6% is 99). */
export function percentOf(rate: number): number {
  const percent = Math.round(rate * 100);
  if (rate < 1 && percent === 100) return 99;
  if (rate > 0 && percent === 0) return 1;
  return percent;
}

export function EndpointStats({ id }: { id: string }) {
  const { t, language } = useTexts(texts);
  const [window, setWindow] = useState<StatsWindow>('24h');
  const [switched, setSwitched] = useState(false);
  const stats = useEndpointStats(id, window);
  const name = useId();
  const data = stats.data;

  const duration = (ms: number | null) => {
    if (ms === null) return <span className="muted">{t('insight.stats.no_answers')}</span>;
    return durationText(ms, language, t);
  };
  const moment = (iso: string | null) =>
    iso === null ? (
      <span className="muted">{t('insight.stats.never')}</span>
    ) : (
      <time dateTime={iso}>{formatTime(iso, language)}</time>
    );

  return (
    <section className="panel endpoint-stats" aria-labelledby="stats-title" aria-busy={stats.isFetching}>
      <div className="stats-head">
        <h2 id="stats-title">{t('insight.stats.title')}</h2>
        <fieldset className="stats-window">
          <legend className="visually-hidden">{t('insight.stats.period')}</legend>
          {WINDOWS.map((w) => (
            <label key={w} className={w === window ? 'selected' : undefined}>
              <input
                type="radio"
                name={name}
                value={w}
                checked={w === window}
                onChange={() => {
                  setWindow(w);
                  setSwitched(true);
                }}
              />
              <span>{t(`insight.stats.${w}`)}</span>
            </label>
          ))}
        </fieldset>
      </div>
      <p className="visually-hidden" role="status">
        {switched && t(`insight.stats.showing_${window}`)}
      </p>
      {stats.isError && !data && <ErrorState error={stats.error} onRetry={() => void stats.refetch()} />}
      {!data && !stats.isError && <p className="loading">{t('insight.stats.loading')}</p>}
      {data && (
        <>
          <dl className="stats-counts" data-window={data.window}>
            <div className="stat-delivered">
              <dt>{t('insight.stats.delivered')}</dt>
              <dd>{formatNumber(data.succeeded, language)}</dd>
            </div>
            <div className="stat-failed">
              <dt>{t('insight.stats.failed')}</dt>
              <dd>{formatNumber(data.failed, language)}</dd>
            </div>
            <div className="stat-waiting">
              <dt>{t('insight.stats.waiting')}</dt>
              <dd>{formatNumber(data.pending, language)}</dd>
            </div>
            {data.held > 0 && (
              <div className="stat-held">
                <dt>{t('insight.stats.held')}</dt>
                <dd>{formatNumber(data.held, language)}</dd>
              </div>
            )}
          </dl>
          <dl className="facts stats-facts">
            <div className="stat-rate">
              <dt>{t('insight.stats.rate')}</dt>
              <dd>
                {data.success_rate === null ? (
                  <span className="muted">{t('insight.stats.rate_none')}</span>
                ) : (
                  <>
                    <strong className="rate">{percentOf(data.success_rate)}%</strong>{' '}
                    {t('insight.stats.rate_of')}
                  </>
                )}
              </dd>
            </div>
            <div className="stat-typical">
              <dt>{t('insight.stats.typical')}</dt>
              <dd>{duration(data.duration_ms.p50)}</dd>
            </div>
            <div className="stat-slow">
              <dt>{t('insight.stats.slow')}</dt>
              <dd>
                {duration(data.duration_ms.p95)}
                {data.duration_ms.p95 !== null && (
                  <span className="hint">{t('insight.stats.slow_hint')}</span>
                )}
              </dd>
            </div>
            <div className="stat-last-success">
              <dt>{t('insight.stats.last_success')}</dt>
              <dd>{moment(data.last_success_at)}</dd>
            </div>
            <div className="stat-last-failure">
              <dt>{t('insight.stats.last_failure')}</dt>
              <dd>{moment(data.last_failure_at)}</dd>
            </div>
          </dl>
          <p className="hint">
            {t('insight.stats.note', { from: formatTime(data.from, language, 'minute') })}
          </p>
        </>
      )}
    </section>
  );
}

/** "180 ms" under a second, else seconds with one decimal ("1.2 s", "1,2 giây"). */
function durationText(
  ms: number,
  language: Language,
  t: (key: 'insight.stats.ms' | 'insight.stats.seconds', params: { n: string }) => string,
): string {
  if (ms < 1000) return t('insight.stats.ms', { n: formatNumber(ms, language) });
  return t('insight.stats.seconds', {
    n: formatNumber(ms / 1000, language, { maximumFractionDigits: 1 }),
  });
}
