// Tells an in-process cache of rows when what it holds may have changed: the code of this process
// that changes such rows says so (`note`, see ../changes.ts), and `PRAGMA data_version` moves
// whenever another connection commits. SQLite only, where the answer is exact: every statement of
// this process runs on its one connection.
import type SQLite from 'better-sqlite3';

export class Changes {
  private readonly counts = new Map<string, number>();
  private external = 0;
  private readonly dataVersion: SQLite.Statement;
  private lastDataVersion: unknown;

  /** The turn snapshot in which data_version was last read (see externalVersion). */
  private readIn = -1;

  /**
   * `beforeRead` opens the connection's turn snapshot, where the check is cheap, and answers its
   * number (-1 when none could open).
   */
  constructor(
    sqlite: SQLite.Database,
    private readonly beforeRead: () => number = () => -1,
  ) {
    this.dataVersion = sqlite.prepare('pragma data_version').pluck();
    this.lastDataVersion = this.dataVersion.get();
  }

  /** Rows of this topic may have changed: called after the write, in the transaction that made it. */
  note(topic: string): void {
    this.counts.set(topic, (this.counts.get(topic) ?? 0) + 1);
  }

  /**
   * A number that grows whenever rows of this topic may have changed. A cache keeps what it read
   * with the number taken before reading, and trusts it while the number stays the same.
   */
  version(topic: string): number {
    return this.externalVersion() + (this.counts.get(topic) ?? 0);
  }

  /** A number that grows whenever another connection (another process) has committed. */
  externalVersion(): number {
    // Read once per turn snapshot: what another process commits meanwhile, this turn's reads do
    // not see either; the next turn looks again.
    const snapshot = this.beforeRead();
    if (snapshot >= 0 && snapshot === this.readIn) return this.external;
    this.readIn = snapshot;
    const dataVersion = this.dataVersion.get();
    if (dataVersion !== this.lastDataVersion) {
      this.lastDataVersion = dataVersion;
      this.external += 1;
    }
    return this.external;
  }
}
