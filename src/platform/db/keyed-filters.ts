// Filters whose statement text is known before they are built: a key names the text, the values
// are its parameters. A list whose filters are all keyed has its statements built and compiled once
// per set of keys (listLive) and run with each request's values, as preparedQuery does for the
// reads every request makes; other filters are built anew each time.
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Filter, RecordTable } from './record-tables.js';
import type { Scope } from './scope.js';
import type { Database } from './types.js';

/** Writes a filter's condition from its values and the tenant's scope, either of which may be stand-ins. */
export type FilterTemplate<T extends RecordTable> = (
  eb: ExpressionBuilder<Database, T>,
  values: readonly unknown[],
  scope: Scope,
) => Expression<SqlBool>;

export type KeyedFilter<T extends RecordTable> = Filter<T> & {
  /** Two filters with the same key write the same SQL for any values. */
  readonly key: string;
  readonly values: readonly unknown[];
  readonly template: FilterTemplate<T>;
};

/**
 * A filter written by `template`, which must use each of `values` (and the scope's tenant id) only as
 * a single parameter (`=`, `<=`, a `sql` placeholder), never to choose what SQL to write: whatever
 * changes the text goes into the key.
 */
export function keyedFilter<T extends RecordTable>(
  scope: Scope,
  key: string,
  values: readonly unknown[],
  template: FilterTemplate<T>,
): KeyedFilter<T> {
  const filter: Filter<T> = (eb) => template(eb, values, scope);
  return Object.assign(filter, { key, values, template });
}

/** `<table>.<column> <operator> value`, keyed. */
export function columnFilter<T extends RecordTable>(
  scope: Scope,
  table: T,
  column: string,
  operator: '=' | '<=' | '>=',
  value: unknown,
): KeyedFilter<T> {
  const ref = `${table}.${column}`;
  return keyedFilter<T>(scope, `${ref} ${operator}`, [value], (eb, [v]) =>
    // The column of a table named by a type parameter is beyond Kysely's types (as in scope.ts).
    (eb as unknown as ExpressionBuilder<Database, RecordTable>)(ref as never, operator, v as never),
  );
}

export function isKeyed<T extends RecordTable>(filter: Filter<T>): filter is KeyedFilter<T> {
  return typeof (filter as Partial<KeyedFilter<T>>).key === 'string';
}
