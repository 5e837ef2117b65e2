// What the machine says about the processes of a run: CPU time (to tell which side of a
// measurement was saturated) and peak resident memory.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** The fields of /proc/PID/stat after the command name (which is in parentheses and may contain spaces). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU seconds (user + system) a process has used so far; 0 once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const fields = statFields(pid);
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Minor page faults of a process so far. */
export function minorFaults(pid: number): number {
  return Number(statFields(pid)[7]);
}

const postgresSeen = new Map<number, number>();
let postgresTotal = 0;
let postgresStarted = false;

/**
 * CPU seconds used by the PostgreSQL server processes of this machine since the first call, as a
 * running total: connection processes come and go, so each is counted by its own growth (a process
 * that ended takes its last moments with it).
 */
export function postgresCpuSeconds(): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue; // the process ended meanwhile
    }
    const pid = Number(entry);
    const used = cpuSeconds(pid);
    if (postgresStarted) postgresTotal += used - (postgresSeen.get(pid) ?? 0);
    postgresSeen.set(pid, used);
  }
  postgresStarted = true;
  return postgresTotal;
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

/**
 * Seconds the threads of a process have spent runnable but waiting for a core (the scheduler's
 * run-queue delay, /proc/PID/task/TID/schedstat); 0 once it is gone. Grows when the machine has
 * more runnable work than cores: the time a latency figure loses to other processes.
 */
export function runQueueSeconds(pid: number): number {
  let total = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const fields = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ');
        total += Number(fields[1]) / 1e9;
      } catch {
        // the thread ended meanwhile
      }
    }
  } catch {
    return 0;
  }
  return total;
}

/** CPU seconds used by every process of the machine so far (all cores, from /proc/stat). */
export function machineCpuSeconds(): number {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    // cpu user nice system idle iowait irq softirq steal …: the busy ones.
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (
      ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) /
      TICKS_PER_SECOND
    );
  } catch {
    return 0;
  }
}
