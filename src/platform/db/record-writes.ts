// The shared writes of soft-deleted, tenant-owned tables: insert (answering the id or the whole row,
// or only when a condition holds), partial update and soft delete, through the tenant-bound helpers.
import { CompiledQuery, type Kysely, type Updateable } from 'kysely';
import { isPostgresDb } from './database.js';
import { groupStatements } from './direct-transaction.js';
import type { RecordColumns, RecordTable, Row } from './record-tables.js';
import { type BaseRow, type RecordBase, type RecordsDb, updateRecords } from './record-view.js';
import type { LiveIds } from './references.js';
import type { Scope } from './scope.js';

export async function insertRecord<T extends RecordTable>(
  scope: Scope,
  table: T,
  values: RecordColumns<T>,
  now: number,
): Promise<number> {
  // The statement insertScoped would make (tenant_id set last), through the RecordsDb view.
  const row = await (scope.db as unknown as Kysely<RecordsDb>)
    .insertInto(table as RecordTable)
    .values({ ...values, created_at: now, updated_at: now, deleted_at: null, tenant_id: scope.tenantId })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** insertRecord, answering the whole row as written (one statement, no read after it). */
export async function insertRecordRow<T extends RecordTable>(
  scope: Scope,
  table: T,
  values: RecordColumns<T>,
  now: number,
): Promise<Row<T> & BaseRow> {
  const row = await (scope.db as unknown as Kysely<RecordsDb>)
    .insertInto(table as RecordTable)
    .values({ ...values, created_at: now, updated_at: now, deleted_at: null, tenant_id: scope.tenantId })
    .returningAll()
    .executeTakeFirstOrThrow();
  return row as unknown as Row<T> & BaseRow;
}

/**
 * insertRecordRow when every id of `live` names a live record of the tenant, checked in the same
 * statement (INSERT … SELECT … WHERE exists …): the row, or undefined when one did not and nothing
 * was written. Its text is written by hand and kept per table, columns and number of ids, so a
 * create compiles nothing: a create is mostly this statement. Its parameters are read from `values`
 * by their keys, with no copy of it made (a copy with the layer's columns added cost about a
 * fifth of a create's own JavaScript).
 */
export async function insertRecordRowIf<T extends RecordTable>(
  scope: Scope,
  table: T,
  values: RecordColumns<T>,
  now: number,
  live: readonly LiveIds[] | false,
): Promise<(Row<T> & BaseRow) | undefined> {
  if (live === false) return undefined;
  const given = values as Record<string, unknown>;
  const keys = Object.keys(given);
  // In a SQLite group commit, run at once on the connection its transaction holds.
  const group = groupStatements(scope.db);
  const postgres = group === undefined && isPostgresDb(scope.db);
  const text = insertIfLiveText(table, keys, live, postgres);
  const parameters: unknown[] = [];
  for (const key of keys) if (!LAYER_SET.has(key)) parameters.push(given[key]);
  parameters.push(now, now, null, scope.tenantId);
  for (const { ids } of live) parameters.push(scope.tenantId, ...ids);
  if (group) return group.all<Row<T> & BaseRow>(text, parameters)[0];
  const { rows } = await scope.db.executeQuery<Row<T> & BaseRow>(CompiledQuery.raw(text, parameters));
  return rows[0];
}

/** The columns insertRecordRowIf sets itself, after the given ones (a given one is left out). */
const LAYER_SET = new Set(['created_at', 'updated_at', 'deleted_at', 'tenant_id']);
const LAYER_COLUMNS = [...LAYER_SET];

/** A text of insertRecordRowIf, with what it was written for. */
interface InsertText {
  keys: readonly string[];
  /** Per reference checked, its table and how many ids (not the request's ids). */
  references: readonly { table: string; count: number }[];
  postgres: boolean;
  text: string;
}

/**
 * Texts of insertRecordRowIf by table. A request chooses which fields it sends, so shapes are few
 * but open; each is found by comparing its keys (the same strings, from Object.keys), with no key
 * string made and hashed per create.
 */
const insertTexts = new Map<string, InsertText[]>();
const INSERT_TEXTS_KEPT = 100;

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameReferences(kept: InsertText['references'], live: readonly LiveIds[]): boolean {
  if (kept.length !== live.length) return false;
  for (let i = 0; i < kept.length; i++) {
    if (kept[i]!.table !== live[i]!.table || kept[i]!.count !== live[i]!.ids.length) return false;
  }
  return true;
}

function insertIfLiveText(
  table: string,
  keys: readonly string[],
  live: readonly LiveIds[],
  postgres: boolean,
): string {
  let kept = insertTexts.get(table);
  if (kept === undefined) {
    kept = [];
    insertTexts.set(table, kept);
  }
  for (const entry of kept) {
    if (entry.postgres === postgres && sameKeys(entry.keys, keys) && sameReferences(entry.references, live))
      return entry.text;
  }
  const columns = [...keys.filter((key) => !LAYER_SET.has(key)), ...LAYER_COLUMNS];
  const text = writeInsertIfLiveText(table, columns, live, postgres);
  if (kept.length >= INSERT_TEXTS_KEPT) kept.length = 0;
  const references = live.map(({ table: t, ids }) => ({ table: t, count: ids.length }));
  kept.push({ keys: [...keys], references, postgres, text });
  return text;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

function writeInsertIfLiveText(
  table: string,
  columns: readonly string[],
  live: readonly LiveIds[],
  postgres: boolean,
): string {
  let n = 0;
  const next = () => (postgres ? `$${++n}` : '?');
  const values = columns.map(next).join(', ');
  const conditions = live.map(({ table: t, ids }) => {
    const tenant = next();
    const list = ids.map(next).join(', ');
    const found = `from ${quoted(t)} where ${quoted(t)}."tenant_id" = ${tenant} and "id" in (${list}) and "deleted_at" is null`;
    return ids.length === 1 ? `exists (select 1 ${found})` : `(select count(*) ${found}) = ${ids.length}`;
  });
  const where = conditions.length === 0 ? '' : ` where ${conditions.join(' and ')}`;
  return `insert into ${quoted(table)} (${columns.map(quoted).join(', ')}) select ${values}${where} returning *`;
}

/** updateRecord, answering the whole row as changed, or undefined when there is no live row. */
export async function updateRecordRow<T extends RecordTable>(
  scope: Scope,
  table: T,
  id: number,
  values: RecordColumns<T>,
  now: number,
): Promise<Row<T> | undefined> {
  const row = await updateRecords(scope, table)
    .set({ ...values, updated_at: now })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return row as unknown as Row<T> | undefined;
}

/**
 * Changes the given columns of a live row; false when there is none. Rows that an in-process cache
 * holds (users, for the token cache) are changed by their own repository, which tells the cache.
 */
export async function updateRecord<T extends RecordTable>(
  scope: Scope,
  table: T,
  id: number,
  values: RecordColumns<T>,
  now: number,
): Promise<boolean> {
  return setLive(scope, table, id, { ...values, updated_at: now });
}

export async function softDeleteRecord<T extends RecordTable>(
  scope: Scope,
  table: T,
  id: number,
  now: number,
): Promise<boolean> {
  return setLive(scope, table, id, { deleted_at: now, updated_at: now });
}

async function setLive(
  scope: Scope,
  table: RecordTable,
  id: number,
  values: Updateable<RecordBase>,
): Promise<boolean> {
  const result = await updateRecords(scope, table)
    .set(values)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
