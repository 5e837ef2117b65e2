// The direct reads of one event-loop turn share one read transaction, a "turn snapshot": a read
// outside a transaction otherwise takes and drops SQLite's WAL read lock (file-lock system calls)
// each time, which costs more than the read itself. The snapshot ends at the end of the turn
// (setImmediate) and before any other statement, so writes and transactions never run inside it,
// and what another process commits is seen from the next turn on.
import type SQLite from 'better-sqlite3';

export class TurnSnapshot {
  private isOpen = false;
  /** Streams iterating rows: no transaction may begin or end under them, so no snapshot opens. */
  private streaming = 0;
  private readonly begin: SQLite.Statement;
  private readonly commit: SQLite.Statement;
  private readonly endOfTurn = () => this.close();

  constructor(private readonly sqlite: SQLite.Database) {
    this.begin = sqlite.prepare('begin');
    this.commit = sqlite.prepare('commit');
  }

  /** Whether a direct read may run now: no transaction is open, or only this turn's snapshot. */
  get readable(): boolean {
    return this.isOpen || !this.sqlite.inTransaction;
  }

  /** Counts the snapshots opened: which one is open, while one is. */
  private opened = 0;

  /**
   * Opens the snapshot for this turn, unless it is open already or a transaction or stream runs.
   * Answers the open snapshot's number, or -1 when none is open.
   */
  open(): number {
    if (this.isOpen) return this.opened;
    if (this.streaming > 0 || this.sqlite.inTransaction) return -1;
    this.begin.run();
    this.isOpen = true;
    this.opened += 1;
    setImmediate(this.endOfTurn);
    return this.opened;
  }

  /** Ends the snapshot, if one is open; every statement but a read outside a transaction calls this first. */
  close(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    if (this.sqlite.inTransaction) this.commit.run();
  }

  /** Ends the snapshot and keeps new ones from opening until the stream ends (`streamEnded`). */
  streamStarted(): void {
    this.close();
    this.streaming += 1;
  }

  streamEnded(): void {
    this.streaming -= 1;
  }
}
