// Which tables this process's statements read and write, for the cache of read answers
// (http/read-cache.ts). Every statement of the process runs on its one connection (connection.ts
// calls `observe`), so a write is seen the moment it runs: it moves the version of each table it
// names and of each table its triggers and foreign-key actions may change, again when its
// transaction ends (a rollback undoes rows a read could not have seen anyway, but costs nothing to
// count). Another process's commit is not seen here: the cache checks `PRAGMA data_version`.
import type SQLite from 'better-sqlite3';

/** The tables of the statements run while it was open (see `TableVersions.beginReading`). */
export interface ReadSet {
  readonly tables: Set<string>;
  /** `writes` and `schema` when the set began: a write meanwhile makes what was read uncertain. */
  readonly writesAtStart: number;
  readonly schemaAtStart: number;
}

interface StatementInfo {
  kind: 'read' | 'write' | 'begin' | 'end';
  /** The known tables the text names, views read through to their tables. */
  tables: string[];
  /** What a write may change: its tables and, through triggers and foreign-key actions, others. */
  changes: string[];
  /** create, drop or alter: the schema itself changes. */
  schema: boolean;
}

interface Schema {
  /** Table and view names, lower case, each to the tables a statement naming it depends on. */
  names: Map<string, string[]>;
  /** A table to the tables a write to it may change (itself included). */
  closure: Map<string, string[]>;
}

const IDENTIFIER = /"((?:[^"]|"")+)"|`([^`]+)`|\[([^\]]+)\]|([A-Za-z_][A-Za-z0-9_$]*)/g;
const ENDS_TRANSACTION = /^\s*(commit|end|rollback)\b/i;
/** `begin immediate` is not read-only to SQLite, yet writes nothing. */
const OPENS_TRANSACTION = /^\s*(begin|savepoint|release)\b/i;
const CHANGES_SCHEMA = /^\s*(create|drop|alter)\b/i;
/** Foreign-key actions that change the child's rows when the parent's change. */
const CHANGING_ACTIONS = new Set(['CASCADE', 'SET NULL', 'SET DEFAULT']);

export class TableVersions {
  private schema: Schema | undefined;
  /** By prepared statement (statements.ts keeps them by text): no second lookup by the text. */
  private infos = new WeakMap<SQLite.Statement, StatementInfo>();
  private readonly versions = new Map<string, number>();
  private readonly writtenInTransaction = new Set<string>();
  private readonly readers = new Set<ReadSet>();
  /** Write statements run so far. */
  private writes = 0;
  /** Moves when the schema changes or a write names no known table: every version is then void. */
  private epoch = 0;
  /** Set by the first `beginReading`: until then a process (a worker, a migration) pays nothing. */
  private inUse = false;

  constructor(private readonly sqlite: SQLite.Database) {}

  /** A statement is about to run (or has run) on the connection. */
  observe(sqlText: string, statement: SQLite.Statement): void {
    if (!this.inUse) {
      // No read has been kept yet: only the count of writes, which costs nothing to keep.
      if (!statement.readonly && !OPENS_TRANSACTION.test(sqlText)) this.writes += 1;
      return;
    }
    const info = this.infoOf(sqlText, statement);
    if (info.kind === 'write') {
      this.writes += 1;
      if (info.schema || info.changes.length === 0) this.voidAll();
      for (const table of info.changes) {
        this.bump(table);
        this.writtenInTransaction.add(table);
      }
    } else if (info.kind === 'end') {
      for (const table of this.writtenInTransaction) this.bump(table);
      if (!/^\s*rollback\s+to\b/i.test(sqlText)) this.writtenInTransaction.clear();
    }
    for (const reader of this.readers) for (const table of info.tables) reader.tables.add(table);
  }

  /** Starts collecting the tables of every statement run until `endReading`. */
  beginReading(): ReadSet {
    this.inUse = true;
    const reader: ReadSet = {
      tables: new Set(),
      writesAtStart: this.writes,
      schemaAtStart: this.epoch,
    };
    this.readers.add(reader);
    return reader;
  }

  endReading(reader: ReadSet): void {
    this.readers.delete(reader);
  }

  /**
   * The versions of a finished read's tables, to compare later with `unchanged`; undefined when
   * what it read is uncertain (a write ran meanwhile, or the schema changed).
   */
  versionsOf(reader: ReadSet): { epoch: number; tables: [string, number][] } | undefined {
    if (reader.writesAtStart !== this.writes || reader.schemaAtStart !== this.epoch) {
      return undefined;
    }
    const tables: [string, number][] = [];
    for (const table of reader.tables) tables.push([table, this.versions.get(table) ?? 0]);
    return { epoch: this.epoch, tables };
  }

  /** Whether none of these tables has been written since `versionsOf` gave them. */
  unchanged(taken: { epoch: number; tables: readonly (readonly [string, number])[] }): boolean {
    if (taken.epoch !== this.epoch) return false;
    for (const [table, version] of taken.tables) {
      if ((this.versions.get(table) ?? 0) !== version) return false;
    }
    return true;
  }

  private bump(table: string): void {
    this.versions.set(table, (this.versions.get(table) ?? 0) + 1);
  }

  private voidAll(): void {
    this.epoch += 1;
    this.schema = undefined;
    this.infos = new WeakMap();
  }

  private infoOf(sqlText: string, statement: SQLite.Statement): StatementInfo {
    let info = this.infos.get(statement);
    if (info !== undefined) return info;
    const kind = ENDS_TRANSACTION.test(sqlText)
      ? 'end'
      : OPENS_TRANSACTION.test(sqlText)
        ? 'begin'
        : statement.readonly
          ? 'read'
          : 'write';
    const schema = kind === 'write' && CHANGES_SCHEMA.test(sqlText);
    if (schema) {
      // Not kept: the tables it names may not exist yet, and the schema is read again after it.
      return { kind, tables: [], changes: [], schema };
    }
    const { names, closure } = this.currentSchema();
    const tables = new Set<string>();
    for (const match of sqlText.matchAll(IDENTIFIER)) {
      const name = (match[1]?.replaceAll('""', '"') ?? match[2] ?? match[3] ?? match[4] ?? '').toLowerCase();
      for (const table of names.get(name) ?? []) tables.add(table);
    }
    const changes = new Set<string>();
    if (kind === 'write')
      for (const table of tables) for (const t of closure.get(table) ?? [table]) changes.add(t);
    info = { kind, tables: [...tables], changes: [...changes], schema };
    this.infos.set(statement, info);
    return info;
  }

  /** The schema as sqlite_master says it now: names, views' tables, and what writes may change. */
  private currentSchema(): Schema {
    if (this.schema !== undefined) return this.schema;
    const objects = this.sqlite
      .prepare(
        `select type, name, tbl_name, sql from sqlite_master where type in ('table', 'view', 'trigger')`,
      )
      .all() as { type: string; name: string; tbl_name: string; sql: string | null }[];
    const tableNames = new Set(objects.filter((o) => o.type === 'table').map((o) => o.name.toLowerCase()));
    const named = (sqlText: string | null) => {
      const found = new Set<string>();
      for (const match of (sqlText ?? '').matchAll(IDENTIFIER)) {
        const name = (match[1] ?? match[2] ?? match[3] ?? match[4] ?? '').toLowerCase();
        if (tableNames.has(name)) found.add(name);
      }
      return found;
    };
    const names = new Map<string, string[]>();
    for (const table of tableNames) names.set(table, [table]);
    for (const view of objects.filter((o) => o.type === 'view')) {
      names.set(view.name.toLowerCase(), [...named(view.sql)]);
    }
    // Direct effects of a write to each table: its triggers' tables and its foreign-key children.
    const direct = new Map<string, Set<string>>();
    const effectsOf = (table: string) => {
      let set = direct.get(table);
      if (set === undefined) {
        set = new Set([table]);
        direct.set(table, set);
      }
      return set;
    };
    for (const trigger of objects.filter((o) => o.type === 'trigger')) {
      for (const table of named(trigger.sql)) effectsOf(trigger.tbl_name.toLowerCase()).add(table);
    }
    for (const child of tableNames) {
      const keys = this.sqlite.pragma(`foreign_key_list("${child.replaceAll('"', '""')}")`) as {
        table: string;
        on_update: string;
        on_delete: string;
      }[];
      for (const key of keys) {
        if (CHANGING_ACTIONS.has(key.on_delete) || CHANGING_ACTIONS.has(key.on_update)) {
          effectsOf(key.table.toLowerCase()).add(child);
        }
      }
    }
    const closure = new Map<string, string[]>();
    for (const table of tableNames) {
      const reached = new Set<string>([table]);
      const queue = [table];
      for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
        for (const t of direct.get(next) ?? []) {
          if (!reached.has(t)) {
            reached.add(t);
            queue.push(t);
          }
        }
      }
      closure.set(table, [...reached]);
    }
    this.schema = { names, closure };
    return this.schema;
  }
}
