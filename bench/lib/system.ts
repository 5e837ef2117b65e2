// What the machine says about the processes of a run: CPU time (to tell which side of a
// measurement was saturated) and peak resident memory.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU seconds of every PostgreSQL server process on this machine. */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres')
        total += cpuSeconds(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** Peak resident set (VmHWM) of a process, in MB. */
export function peakRssMb(pid: number): number {
  try {
    const kb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return Math.round(kb / 1024);
  } catch {
    return 0;
  }
}

/** CPU seconds of this process (the load generator lives here). */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

export type CpuSources = Record<string, () => number>;

/** CPU use of each source between start and stop, in % of one core. */
export function cpuMeter(sources: CpuSources): () => Record<string, number> {
  const started = performance.now();
  const before = Object.fromEntries(Object.entries(sources).map(([name, read]) => [name, read()]));
  return () => {
    const seconds = (performance.now() - started) / 1000;
    return Object.fromEntries(
      Object.entries(sources).map(([name, read]) => [
        name,
        Math.round((100 * (read() - (before[name] ?? 0))) / seconds),
      ]),
    );
  };
}
