// Prepared statements by their SQL text: the stock driver parses every query anew, which costs more
// than a lookup by key.
import type SQLite from 'better-sqlite3';

/**
 * Prepared statements kept per connection; past this, the oldest is dropped. A hit does not reorder
 * the map: deleting and re-adding a key on every query churns the map's storage, which lives in the
 * old generation, and grows the heap under load.
 */
export const STATEMENT_CACHE_SIZE = 500;

export class StatementCache {
  private readonly statements = new Map<string, SQLite.Statement>();

  constructor(private readonly sqlite: SQLite.Database) {}

  /** A prepared statement for this SQL; a statement still iterating is never handed out twice. */
  get(sqlText: string): SQLite.Statement {
    const cached = this.statements.get(sqlText);
    if (cached !== undefined) {
      return cached.busy ? this.sqlite.prepare(sqlText) : cached;
    }
    const statement = this.sqlite.prepare(sqlText);
    this.statements.set(sqlText, statement);
    if (this.statements.size > STATEMENT_CACHE_SIZE) {
      this.statements.delete(this.statements.keys().next().value as string);
    }
    return statement;
  }
}
