// What every command shares: its options, usage errors, subcommands and a database to work on.
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../platform/db/database.js';
import { load } from './lazy.js';

export type Command = (args: string[]) => Promise<number>;

export class UsageError extends Error {}

export async function subcommand(
  name: string,
  subs: Record<string, Command>,
  args: string[],
): Promise<number> {
  const [sub, ...rest] = args;
  const run = sub ? subs[sub] : undefined;
  if (!run) {
    if (sub === '--help' || sub === '-h') {
      process.stdout.write(
        `Usage: furrow ${name} ${Object.keys(subs).join('|')} [options]; --help on each.\n`,
      );
      return 0;
    }
    throw new UsageError(`Usage: furrow ${name} ${Object.keys(subs).join('|')} [options]`);
  }
  return run(rest);
}

type OptionSpec = Record<string, { type: 'string' | 'boolean' }>;

/** Parsed options, or undefined when --help was asked for (and printed). */
export function parseOptions<T extends OptionSpec>(
  args: string[],
  options: T,
  help: string,
): Record<keyof T, string | boolean | undefined> | undefined {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: false,
      strict: true,
    }).values as Record<string, string | boolean | undefined>;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${help}`);
  }
  if (values.help) {
    process.stdout.write(help);
    return undefined;
  }
  return values as Record<keyof T, string | boolean | undefined>;
}

export function requireOption(values: Record<string, unknown>, name: string, help: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`Missing --${name}.\n\n${help}`);
  return value;
}

/** The database for a command; these migrate first, so statements may take as long as they need. */
export async function withDatabase<R>(
  config: Config,
  fn: (database: DatabaseHandle) => Promise<R>,
): Promise<R> {
  const { openDatabase, bulkWorkTimeouts } = await load.database();
  const database = openDatabase(config.databaseUrl, { timeouts: bulkWorkTimeouts(config.databaseTimeouts) });
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}
