// Tells an in-process cache of rows when rows of a table may have changed: an update or a delete of
// that table by this process, or any write by another process. Inserts are not changes here: they
// add rows without altering one a cache holds. SQLite only, where the answer is exact: every
// statement of this process runs on its one connection (sqlite-driver.ts), and `PRAGMA
// data_version` moves whenever another connection commits.
import type SQLite from 'better-sqlite3';

const UPDATE_OR_DELETE = /^\s*(?:update|delete\s+from)\s+"?([A-Za-z_]\w*)"?/i;

export class TableChanges {
  private readonly counts = new Map<string, number>();
  private external = 0;
  private readonly dataVersion: SQLite.Statement;
  private lastDataVersion: unknown;

  /** `beforeRead` opens the connection's turn snapshot (sqlite-driver.ts), where the check is cheap. */
  constructor(
    sqlite: SQLite.Database,
    private readonly beforeRead: () => void = () => {},
  ) {
    this.dataVersion = sqlite.prepare('pragma data_version').pluck();
    this.lastDataVersion = this.dataVersion.get();
  }

  /** Called with every statement that writes, before it runs. */
  noteWrite(sqlText: string): void {
    const table = UPDATE_OR_DELETE.exec(sqlText)?.[1];
    if (table !== undefined) this.counts.set(table, (this.counts.get(table) ?? 0) + 1);
  }

  /**
   * A number that grows whenever rows of these tables may have changed. A cache keeps what it
   * read with the number taken before reading, and trusts it while the number stays the same.
   */
  version(tables: readonly string[]): number {
    this.beforeRead();
    const dataVersion = this.dataVersion.get();
    if (dataVersion !== this.lastDataVersion) {
      this.lastDataVersion = dataVersion;
      this.external += 1;
    }
    let version = this.external;
    for (const table of tables) version += this.counts.get(table) ?? 0;
    return version;
  }
}
