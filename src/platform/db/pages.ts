// Pages of rows: the paging request, a page with its total and whether one follows, counting up to
// a limit, and the text budget that keeps one page from exhausting the process's memory.
import type { SelectQueryBuilder } from 'kysely';
import { type AppError, validationFailed } from '../errors.js';
import type { Db } from './types.js';

export interface PageRequest {
  /** From 0. */
  page: number;
  pageLimit: number;
}

/** A filtered list counts its matches up to this many; past it, its total is not given. */
export const COUNT_LIMIT = 10_000;

/**
 * The most text one page may hold, in characters of its rows' text columns (about the bytes of its
 * answer). A page asking for more rows than fit is a 422 that says how many do fit, so a few huge
 * records cannot make one answer, or a handful of concurrent ones, exhaust the process's memory.
 */
export const MAX_PAGE_TEXT = 8 * 1024 * 1024;
/** A larger page reads its rows this many at a time, stopping as soon as the page is too large. */
export const ROWS_PER_READ = 25;

/** A 422 naming pageLimit: the page holds more than MAX_PAGE_TEXT; `fits` rows would not. */
export function pageTooLarge(fits: number): AppError {
  return validationFailed([
    {
      field: 'pageLimit',
      message: 'field.page_too_large',
      params: { megabytes: MAX_PAGE_TEXT / 1024 / 1024, fits: Math.max(1, fits) },
    },
  ]);
}

/**
 * Counts the text of a page's rows as they are read and throws pageTooLarge past MAX_PAGE_TEXT.
 * The row read past the page (which tells whether a next page exists) is not counted.
 */
export class PageBudget {
  private chars = 0;
  private counted = 0;
  constructor(private readonly pageRows: number) {}
  take(row: object): void {
    if (this.counted >= this.pageRows) return;
    for (const value of Object.values(row)) if (typeof value === 'string') this.chars += value.length;
    if (this.chars > MAX_PAGE_TEXT) throw pageTooLarge(this.counted);
    this.counted += 1;
  }
}

export interface PageOf<R> {
  rows: R[];
  /** Matching rows in all; undefined when a filtered list matches more than COUNT_LIMIT. */
  total: number | undefined;
  /** Whether a page follows this one. */
  hasNext: boolean;
}

/**
 * A page of rows and what the paging headers need. The rows are fetched with one more than asked,
 * which tells whether a next page exists; a page that turns out to be the last gives the total
 * without counting. `count` is asked only otherwise.
 */
export async function pageOf<R>(
  page: PageRequest,
  fetch: (limit: number, offset: number) => Promise<R[]>,
  count: () => Promise<number | undefined>,
): Promise<PageOf<R>> {
  const offset = page.page * page.pageLimit;
  const fetched = await fetch(page.pageLimit + 1, offset);
  const hasNext = fetched.length > page.pageLimit;
  const rows = hasNext ? fetched.slice(0, page.pageLimit) : fetched;
  if (!hasNext && (rows.length > 0 || offset === 0)) return { rows, total: offset + rows.length, hasNext };
  return { rows, total: await count(), hasNext };
}

/** The number of rows a query selects, counted up to COUNT_LIMIT; undefined past it. */
export async function countUpTo<DB, TB extends keyof DB, O>(
  db: Db,
  matches: SelectQueryBuilder<DB, TB, O>,
): Promise<number | undefined> {
  return countOrUndefined(await countQuery(db, matches).executeTakeFirst());
}

/** The statement of countUpTo: its rows counted, up to one past COUNT_LIMIT. */
export function countQuery<DB, TB extends keyof DB, O>(db: Db, matches: SelectQueryBuilder<DB, TB, O>) {
  return db
    .selectFrom(matches.limit(COUNT_LIMIT + 1).as('matches'))
    .select((eb) => eb.fn.countAll<number>().as('n'));
}

/** countQuery's answer as countUpTo gives it: undefined past COUNT_LIMIT. */
export function countOrUndefined(row: { n: number | string | bigint } | undefined): number | undefined {
  const n = Number(row?.n ?? 0);
  return n > COUNT_LIMIT ? undefined : n;
}
