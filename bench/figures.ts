// What a benchmark run produces: figures, each with the baseline it is a ratio of (measured in the
// same run), its target where the issue sets one, and the CPU use that tells what limited it.

export type Section =
  | 'api'
  | 'growth'
  | 'series'
  | 'deliveries'
  | 'scale-out'
  | 'ingestion'
  | 'lorawan'
  | 'memory';

export interface Target {
  /** value / baseline must reach this. */
  ratio?: number;
  /** baseline / value may not exceed this (a read at 1 M rows against the same read at 10 k). */
  slowdownAtMost?: number;
  atLeast?: number;
  atMost?: number;
  /** The p99 latency in ms may not exceed this. */
  p99AtMost?: number;
}

export interface Figure {
  section: Section;
  dialect: 'sqlite' | 'postgres';
  name: string;
  value: number;
  unit: string;
  p99Ms?: number;
  p95Ms?: number;
  baseline?: { name: string; value: number };
  ratio?: number;
  target?: Target;
  /** CPU use during the measurement, % of one core, per process. */
  cpu?: Record<string, number>;
  baselineCpu?: Record<string, number>;
  note?: string;
}

export interface Settings {
  quick: boolean;
  /** Counted seconds of each HTTP load, after a warm-up of warmupS. */
  durationS: number;
  warmupS: number;
  /** API figures: ceiling and Furrow measured in turns this many times, the best of each kept. */
  rounds: number;
  /** Crops and tasks in the tenant of the API figures. */
  apiRows: number;
  /** Row counts of the growth figures; the first is the baseline. */
  growthScales: number[];
  /** Deliveries in a backlog of the delivery figures. */
  backlogEvents: number;
  /** Seconds of the 200 events/s latency run. */
  latencyS: number;
  /** Whether a figure (by name or section) is part of this run. */
  wanted(name: string): boolean;
}

export function met(figure: Figure): boolean | undefined {
  const t = figure.target;
  if (!t) return undefined;
  if (t.ratio !== undefined) return (figure.ratio ?? 0) >= t.ratio;
  if (t.slowdownAtMost !== undefined) return (figure.ratio ?? Number.POSITIVE_INFINITY) <= t.slowdownAtMost;
  if (t.atLeast !== undefined) return figure.value >= t.atLeast;
  if (t.atMost !== undefined) return figure.value <= t.atMost;
  if (t.p99AtMost !== undefined) return (figure.p99Ms ?? Number.POSITIVE_INFINITY) <= t.p99AtMost;
  return undefined;
}

function targetText(figure: Figure): string {
  const t = figure.target;
  if (!t) return '';
  const verdict = met(figure) ? 'met' : '**not met**';
  if (t.ratio !== undefined) return `≥ ${t.ratio} ${verdict}`;
  if (t.slowdownAtMost !== undefined) return `≤ ${t.slowdownAtMost}× ${verdict}`;
  if (t.atLeast !== undefined) return `≥ ${t.atLeast.toLocaleString('en')} ${verdict}`;
  if (t.p99AtMost !== undefined) return `p99 ≤ ${t.p99AtMost} ms ${verdict}`;
  return `≤ ${t.atMost} ${verdict}`;
}

const round = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en') : n.toFixed(n >= 10 ? 1 : 2));

function cpuText(cpu: Record<string, number> | undefined): string {
  if (!cpu) return '';
  return Object.entries(cpu)
    .map(([name, pct]) => `${name} ${pct}%`)
    .join(', ');
}

/** One Markdown table per section. */
export function markdown(figures: Figure[]): string {
  const sections = [...new Set(figures.map((f) => f.section))];
  return sections
    .map((section) => {
      const rows = figures
        .filter((f) => f.section === section)
        .map((f) => {
          const value = `${round(f.value)} ${f.unit}`;
          const latency =
            f.p95Ms !== undefined
              ? `p95 ${round(f.p95Ms)} ms`
              : f.p99Ms !== undefined
                ? `p99 ${round(f.p99Ms)} ms`
                : '';
          const baseline = f.baseline ? `${round(f.baseline.value)} (${f.baseline.name})` : '';
          const ratio =
            f.ratio === undefined
              ? ''
              : f.target?.slowdownAtMost !== undefined
                ? `${f.ratio.toFixed(2)}×`
                : f.ratio.toFixed(2);
          return `| ${f.dialect} | ${f.name} | ${value} | ${latency} | ${baseline} | ${ratio} | ${targetText(f)} | ${cpuText(f.cpu)} |`;
        });
      return [
        `### ${section}`,
        '',
        '| database | measurement | Furrow | latency | baseline (same run) | ratio | target | CPU during the run |',
        '|---|---|---|---|---|---|---|---|',
        ...rows,
      ].join('\n');
    })
    .join('\n\n');
}
