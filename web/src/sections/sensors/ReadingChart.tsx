// One measurement of a device over a period: a uPlot chart (drawn on a canvas that follows the
// width of its box), and the same numbers in words for everyone: a one-line summary (lowest,
// average, highest) and the table behind the chart under "Show the numbers". uPlot is imported
// here only, so it travels in the device page's own file.
import { useEffect, useId, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Language } from '../../app/i18n';
import { useTexts } from '../../app/texts';
import { formatDate, formatNumber, formatTime } from '../../ui/format';
import { ErrorState, Loading } from '../../ui/States';
import { PERIODS, type PeriodId, type Reading, type SeriesPoint, useSeries } from './api';
import { formatValue, metricName, metricUnit } from './parts';
import { texts } from './texts';

const COLORS = {
  avg: '#2f6b3a',
  min: '#a4261b',
  max: '#a4261b',
  limit: '#7a4b00',
  axis: '#4a524d',
  grid: '#e6e3da',
};
const LOCALES: Record<Language, string> = { en: 'en-GB', vi: 'vi-VN' };

interface ReadingChartProps {
  deviceId: number;
  metric: string;
  period: PeriodId;
  latest: Reading | undefined;
  /** The limits of the rules watching this measurement, drawn across the chart. */
  limits: number[];
  active: boolean;
}

export function ReadingChart({ deviceId, metric, period, latest, limits, active }: ReadingChartProps) {
  const { t, language } = useTexts(texts);
  const series = useSeries(deviceId, metric, period, { active });
  const headingId = useId();
  const tableId = useId();
  const unit = metricUnit(metric);
  const name = metricName(metric, language);
  const points = series.data;
  const bucket = PERIODS.find((p) => p.id === period)?.bucket ?? '1h';
  const summary = useMemo(() => summarise(points ?? []), [points]);
  const value = (n: number) => formatValue(n, metric, language);
  const time = (iso: string) =>
    bucket === '1d' ? formatDate(iso, language) : formatTime(iso, language, 'minute');

  return (
    <section className="reading-chart" aria-labelledby={headingId} aria-busy={series.isFetching}>
      <h3 id={headingId}>
        {name}
        {unit && <span className="unit"> ({unit})</span>}
        {name !== metric && <code className="metric-code">{metric}</code>}
      </h3>
      {latest && (
        <p className="latest">
          {t('chart.latest', { value: value(latest.value), time: formatTime(latest.recorded_at, language) })}
        </p>
      )}
      {series.isPending && <Loading label={t('readings.loading')} />}
      {series.isError && !points && <ErrorState error={series.error} onRetry={() => void series.refetch()} />}
      {points?.length === 0 && <p className="empty-inline">{t('chart.empty')}</p>}
      {points && points.length > 0 && summary && (
        <>
          <p className="chart-summary">
            {t('chart.summary', {
              period: t(`period.${period}`),
              min: value(summary.min),
              avg: value(summary.avg),
              max: value(summary.max),
              n: formatNumber(summary.count, language),
            })}
          </p>
          <Plot
            points={points}
            period={period}
            limits={limits}
            unit={unit}
            language={language}
            labels={{ avg: t('chart.col.avg'), min: t('chart.col.min'), max: t('chart.col.max') }}
          />
          <p className="hint chart-legend">
            <span className="swatch swatch-avg" aria-hidden="true" />
            <span className="swatch swatch-range" aria-hidden="true" />
            {t('chart.legend')}
            {limits.length > 0 && (
              <>
                <span className="swatch swatch-limit" aria-hidden="true" />
                {t('chart.limits', { limits: limits.map(value).join(', ') })}
              </>
            )}
          </p>
          <details className="numbers">
            <summary>{t('chart.show_numbers')}</summary>
            <p className="hint">{t(`chart.rows.${bucket}`)}</p>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
            <section className="table-scroll" tabIndex={0} aria-labelledby={tableId}>
              <table className="data-table numbers-table">
                <caption className="visually-hidden" id={tableId}>
                  {t('chart.table', { metric: name, period: t(`period.${period}`) })}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">{t('chart.col.time')}</th>
                    <th scope="col">{t('chart.col.min')}</th>
                    <th scope="col">{t('chart.col.avg')}</th>
                    <th scope="col">{t('chart.col.max')}</th>
                    <th scope="col">{t('chart.col.count')}</th>
                  </tr>
                </thead>
                <tbody>
                  {points.map((p) => (
                    <tr key={p.t}>
                      <th scope="row" data-label={t('chart.col.time')}>
                        <time dateTime={p.t}>{time(p.t)}</time>
                      </th>
                      <td data-label={t('chart.col.min')}>{value(p.min)}</td>
                      <td data-label={t('chart.col.avg')}>{value(p.avg)}</td>
                      <td data-label={t('chart.col.max')}>{value(p.max)}</td>
                      <td data-label={t('chart.col.count')}>{formatNumber(p.count, language)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          </details>
        </>
      )}
    </section>
  );
}

function summarise(points: SeriesPoint[]) {
  if (points.length === 0) return null;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let sum = 0;
  let count = 0;
  for (const p of points) {
    min = Math.min(min, p.min);
    max = Math.max(max, p.max);
    sum += p.avg * p.count;
    count += p.count;
  }
  return { min, max, avg: count > 0 ? sum / count : 0, count };
}

/** A tick on the time axis: the date at midnight, else the time of day (the browser's zone). */
function tickLabel(seconds: number, language: Language): string {
  const date = new Date(seconds * 1000);
  const midnight = date.getHours() === 0 && date.getMinutes() === 0;
  return new Intl.DateTimeFormat(
    LOCALES[language],
    midnight ? { day: 'numeric', month: 'short' } : { hour: '2-digit', minute: '2-digit' },
  ).format(date);
}

/** How far back each period reaches, in seconds: the time axis spans all of it. */
const SPAN_SECONDS: Record<PeriodId, number> = { '24h': 86_400, '7d': 7 * 86_400, '30d': 30 * 86_400 };

interface PlotProps {
  points: SeriesPoint[];
  period: PeriodId;
  limits: number[];
  unit: string | undefined;
  language: Language;
  labels: { avg: string; min: string; max: string };
}

/** The canvas itself; hidden from screen readers, who get the summary and the table instead. */
function Plot({ points, period, limits, unit, language, labels }: PlotProps) {
  const box = useRef<HTMLDivElement>(null);

  // uPlot draws outside React: made when the numbers change, sized to its box, removed on leave.
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const xs = points.map((p) => new Date(p.t).getTime() / 1000);
    const data: uPlot.AlignedData = [
      xs,
      points.map((p) => p.avg),
      points.map((p) => p.min),
      points.map((p) => p.max),
    ];
    const size = () => ({
      width: Math.max(element.clientWidth, 200),
      height: element.clientWidth < 500 ? 220 : 300,
    });
    const number = (v: number) => formatNumber(v, language, { maximumFractionDigits: 2 });
    const plot = new uPlot(
      {
        ...size(),
        legend: { show: false },
        cursor: { show: false },
        scales: {
          // The whole period, ending now (or at the last reading if the clocks disagree).
          x: {
            time: true,
            range: (_u, _min, max) => {
              const end = Math.max(Date.now() / 1000, max);
              return [end - SPAN_SECONDS[period], end];
            },
          },
          // The alert limits stay in view even when every reading is far from them.
          y: {
            range: (_u, min, max) => {
              const low = Math.min(min, ...limits);
              const high = Math.max(max, ...limits);
              const pad = (high - low) * 0.08 || 1;
              return [low - pad, high + pad];
            },
          },
        },
        hooks: {
          draw: [
            (u) => {
              const { ctx } = u;
              ctx.save();
              ctx.strokeStyle = COLORS.limit;
              ctx.lineWidth = 2 * uPlot.pxRatio;
              ctx.setLineDash([2 * uPlot.pxRatio, 4 * uPlot.pxRatio]);
              for (const limit of limits) {
                const y = Math.round(u.valToPos(limit, 'y', true));
                ctx.beginPath();
                ctx.moveTo(u.bbox.left, y);
                ctx.lineTo(u.bbox.left + u.bbox.width, y);
                ctx.stroke();
              }
              ctx.restore();
            },
          ],
        },
        series: [
          {},
          { label: labels.avg, stroke: COLORS.avg, width: 2, points: { show: points.length < 60 } },
          { label: labels.min, stroke: COLORS.min, width: 1, dash: [6, 4], points: { show: false } },
          { label: labels.max, stroke: COLORS.max, width: 1, dash: [6, 4], points: { show: false } },
        ],
        axes: [
          {
            stroke: COLORS.axis,
            grid: { stroke: COLORS.grid },
            ticks: { stroke: COLORS.grid },
            space: 70,
            values: (_u, splits) => splits.map((s) => tickLabel(s, language)),
          },
          {
            stroke: COLORS.axis,
            grid: { stroke: COLORS.grid },
            ticks: { stroke: COLORS.grid },
            ...(unit ? { label: unit, labelSize: 20 } : {}),
            size: 56,
            values: (_u, splits) => splits.map(number),
          },
        ],
      },
      data,
      element,
    );
    const observer = new ResizeObserver(() => {
      const next = size();
      if (next.width !== plot.width || next.height !== plot.height) plot.setSize(next);
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [points, period, limits, unit, language, labels.avg, labels.min, labels.max]);

  return <div className="plot" ref={box} aria-hidden="true" />;
}
