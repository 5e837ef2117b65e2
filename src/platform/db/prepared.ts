// Queries built with Kysely once and compiled once per dialect, then run with fresh parameters:
// the reads every request makes (its token, a record by id) skip building and compiling. On
// SQLite, such a read runs on the connection at once when no transaction is open there
// (directSqliteConnection), without queueing behind the other requests in flight.
import { type Compilable, type CompiledQuery, createQueryId, type Kysely } from 'kysely';
import { isPostgresDb } from './database.js';
import { directSqliteConnection } from './sqlite/open.js';
import type { Database, Db } from './types.js';

/** Stands for a named parameter while the query is compiled. */
class Param {
  constructor(readonly name: string) {}
}

interface Template {
  compiled: CompiledQuery;
  /** How each parameter of the compiled SQL is taken from the call's parameters. */
  values: ((params: Record<string, unknown>) => unknown)[];
}

export interface PreparedQuery<P, R> {
  /** Every row. */
  all(db: Db, params: P): Promise<R[]>;
  /** The first row, if any. */
  first(db: Db, params: P): Promise<R | undefined>;
}

/**
 * A query with named parameters. `build` receives stand-ins for the parameters and must use each
 * only as a single value (`=`, `<`, `limit` …); a list for `in` cannot be a parameter.
 */
export function preparedQuery<P extends Record<string, unknown>, R>(
  build: (db: Kysely<Database>, params: P) => Compilable<R>,
): PreparedQuery<P, R> {
  const templates = new Map<'sqlite' | 'postgres', Template>();
  const stand = new Proxy({} as P, { get: (_, name) => new Param(String(name)) });

  const templateFor = (db: Db): Template => {
    const dialect = isPostgresDb(db) ? 'postgres' : 'sqlite';
    let template = templates.get(dialect);
    if (template === undefined) {
      const compiled = build(db as Kysely<Database>, stand).compile();
      const values = compiled.parameters.map((value) => {
        if (!(value instanceof Param)) return () => value;
        const { name } = value;
        return (params: Record<string, unknown>) => params[name];
      });
      template = { compiled, values };
      templates.set(dialect, template);
    }
    return template;
  };

  const all = async (db: Db, params: P): Promise<R[]> => {
    const { compiled, values } = templateFor(db);
    const parameters = values.map((value) => value(params));
    const direct = directSqliteConnection(db);
    if (direct !== undefined) return direct.readRows<R>(compiled.sql, parameters);
    const result = await db.executeQuery<R>({ ...compiled, queryId: createQueryId(), parameters });
    return result.rows;
  };

  return {
    all,
    async first(db, params) {
      return (await all(db, params))[0];
    },
  };
}
