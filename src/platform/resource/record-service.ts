// The service side of a resource, written once: list with filters, detail, create and update with
// reference checks in one transaction, soft delete. A resource gives its table, how a request maps
// to columns and how rows become answers (batch, so nested objects cost one query per kind).

import { isPostgresDb } from '../db/database.js';
import {
  type Filter,
  findLive,
  findLiveLocked,
  insertRecordRow,
  insertRecordRowIf,
  listLive,
  lockLive,
  type RecordColumns,
  type RecordTable,
  type RequestColumns,
  type Row,
  softDeleteRecord,
  updateRecordRow,
} from '../db/records.js';
import { checkReferences, liveIdsOf, type Reference } from '../db/references.js';
import { inTransaction, type Scope } from '../db/scope.js';
import { type FieldError, notFound, validationFailed } from '../errors.js';
import type { PageQuery, RequestContext } from './context.js';

export type { RecordColumns, RequestColumns, Row } from '../db/records.js';

export interface RecordServiceSpec<T extends RecordTable, Input, Query> {
  table: T;
  /** Rows → answers, in order. `form` tells the list form from the detail form. */
  present(ctx: RequestContext, rows: Row<T>[], form: 'list' | 'detail'): Promise<unknown[]> | unknown[];
  /** The detail form of a live record read at once (e.g. one statement with joins), else undefined. */
  readDetail?(ctx: RequestContext, id: number): Promise<unknown>;
  /** The columns a request sets (only the fields it carries); format problems go to errors. */
  toColumns(input: Input, errors: FieldError[], ctx: RequestContext): RequestColumns<T>;
  /** Column values set on create only (defaults that depend on the request, e.g. created_by). */
  onCreate?(ctx: RequestContext, columns: RecordColumns<T>): RecordColumns<T> | Promise<RecordColumns<T>>;
  /** References among the columns, checked in the caller's tenant. */
  references?(columns: RequestColumns<T>, input: Input): Reference[];
  /** Further checks that need the database (cycles, uniqueness); push to errors. */
  check?(
    ctx: RequestContext,
    columns: RequestColumns<T>,
    errors: FieldError[],
    id: number | undefined,
  ): Promise<void>;
  /** Writes that go with the row in the same transaction (join tables). */
  afterWrite?(ctx: RequestContext, id: number, input: Input): Promise<void>;
  /** Translates a write error (e.g. a unique violation) into a field error, or rethrows. */
  onWriteError?(err: unknown): never;
  filters?(ctx: RequestContext, query: Query): Filter<T>[];
}

/**
 * Records each request's transaction has read under lock (lockedGet): an update there need not
 * look again. Kept by the request's scope in its transaction, not by the transaction, which on
 * SQLite several requests share (sqlite/group-commit.ts).
 */
const lockedInTransaction = new WeakMap<Scope, Set<string>>();

export function recordService<T extends RecordTable, Create, Update, Query>(
  spec: RecordServiceSpec<T, Create | Update, Query>,
) {
  const detail = async (ctx: RequestContext, row: Row<T>): Promise<unknown> => {
    const [item] = await spec.present(ctx, [row], 'detail');
    return item;
  };

  const get = async (ctx: RequestContext, id: number): Promise<unknown> => {
    if (spec.readDetail) {
      const item = await spec.readDetail(ctx, id);
      if (item === undefined) throw notFound();
      return item;
    }
    const row = await findLive(ctx.scope, spec.table, id);
    if (!row) throw notFound();
    return detail(ctx, row);
  };

  const validate = async (ctx: RequestContext, input: Create | Update, id: number | undefined) => {
    const errors: FieldError[] = [];
    const columns = spec.toColumns(input, errors, ctx);
    if (spec.references) errors.push(...(await checkReferences(ctx.scope, spec.references(columns, input))));
    if (spec.check) await spec.check(ctx, columns, errors, id);
    if (errors.length > 0) throw validationFailed(errors);
    // The checks passed: a null left in a column that must not be null was refused above (the
    // references and checks of each resource refuse a null for a required reference).
    return columns as RecordColumns<T>;
  };

  // A create or an update writes one row after checks that only read. On PostgreSQL, at READ
  // COMMITTED, a transaction around them would hold nothing that the statements do not hold alone
  // (the checks take no locks) and would cost a round trip for its begin and one for its commit:
  // it runs without one unless it writes more rows (afterWrite) or its caller holds one already
  // (If-Match). On SQLite the transaction keeps other requests off the connection meanwhile.
  const writing = <R>(scope: Scope, fn: (scope: Scope) => Promise<R>): Promise<R> =>
    spec.afterWrite || !isPostgresDb(scope.db) ? inTransaction(scope, fn) : fn(scope);

  /**
   * A create whose only database checks are its references: the insert checks them itself
   * (INSERT … SELECT … WHERE they are live), one statement instead of a read and a write. Undefined
   * when they did not all hold: the caller then checks them the usual way, which names the field.
   */
  const insertCheckingReferences = async (ctx: RequestContext, input: Create | Update) => {
    const errors: FieldError[] = [];
    const requested = spec.toColumns(input, errors, ctx);
    // A format problem: the usual way answers it with every other problem of the request.
    if (errors.length > 0) return undefined;
    const live = spec.references ? liveIdsOf(spec.references(requested, input)) : [];
    let columns = requested as RecordColumns<T>;
    if (spec.onCreate) columns = await spec.onCreate(ctx, columns);
    return insertRecordRowIf(ctx.scope, spec.table, columns, ctx.clock.now(), live);
  };

  const guarded = async <R>(fn: () => Promise<R>): Promise<R> => {
    try {
      return await fn();
    } catch (err) {
      if (spec.onWriteError) spec.onWriteError(err);
      throw err;
    }
  };

  return {
    async list(ctx: RequestContext, query: PageQuery & Query) {
      const page = await listLive(ctx.scope, spec.table, query, spec.filters?.(ctx, query) ?? []);
      return { items: await spec.present(ctx, page.rows, 'list'), total: page.total, hasNext: page.hasNext };
    },

    get,

    /** Holds the record's row for the rest of the caller's transaction (an If-Match check and its write). */
    lock: (ctx: RequestContext, id: number) => lockLive(ctx.scope, spec.table, id),

    /** lock and get in one statement: the detail of a record held for the caller's transaction. */
    async lockedGet(ctx: RequestContext, id: number): Promise<unknown> {
      const row = await findLiveLocked(ctx.scope, spec.table, id);
      if (!row) throw notFound();
      const held = lockedInTransaction.get(ctx.scope) ?? new Set<string>();
      lockedInTransaction.set(ctx.scope, held);
      held.add(`${spec.table}:${id}`);
      return detail(ctx, row);
    },

    create(ctx: RequestContext, input: Create): Promise<{ id: number }> {
      return guarded(() =>
        writing(ctx.scope, async (scope) => {
          const tx: RequestContext = { scope, clock: ctx.clock, user: ctx.user };
          let written = spec.check ? undefined : await insertCheckingReferences(tx, input);
          if (written === undefined) {
            let columns = await validate(tx, input, undefined);
            if (spec.onCreate) columns = await spec.onCreate(tx, columns);
            // The row as written is the row to answer: afterWrite changes other tables only.
            written = await insertRecordRow(scope, spec.table, columns, ctx.clock.now());
          }
          if (spec.afterWrite) await spec.afterWrite(tx, written.id, input);
          return (await detail(tx, written)) as { id: number };
        }),
      );
    },

    update(ctx: RequestContext, id: number, input: Update): Promise<unknown> {
      return guarded(() =>
        writing(ctx.scope, async (scope) => {
          const tx: RequestContext = { scope, clock: ctx.clock, user: ctx.user };
          // A record this transaction holds (If-Match read it under lock) exists: no need to look.
          const held = lockedInTransaction.get(scope)?.has(`${spec.table}:${id}`) === true;
          if (!held && !(await findLive(scope, spec.table, id))) throw notFound();
          const columns = await validate(tx, input, id);
          const row = await updateRecordRow(scope, spec.table, id, columns, ctx.clock.now());
          if (!row) throw notFound();
          if (spec.afterWrite) await spec.afterWrite(tx, id, input);
          return detail(tx, row);
        }),
      );
    },

    async remove(ctx: RequestContext, id: number): Promise<void> {
      if (!(await softDeleteRecord(ctx.scope, spec.table, id, ctx.clock.now()))) throw notFound();
    },
  };
}

/** A parent reference must not make a record its own ancestor (crop types, product categories). */
export async function checkParentCycle(
  ctx: RequestContext,
  table: 'crop_types' | 'product_categories',
  id: number | undefined,
  parentId: number | null | undefined,
  errors: FieldError[],
): Promise<void> {
  if (id === undefined || typeof parentId !== 'number') return;
  let current: number | null = parentId;
  for (let depth = 0; current !== null && depth < 100; depth++) {
    if (current === id) {
      errors.push({ field: 'parent_id', message: 'field.invalid' });
      return;
    }
    const row: { parent_id: number | null } | undefined = await findLive(ctx.scope, table, current);
    current = row?.parent_id ?? null;
  }
}
