// Transactions that arrive together share one commit. On SQLite a commit appends every page it
// changed to the WAL (and the full-text indexes flush a segment each), which costs more than the
// one-row write of a create; requests that reach `inTransaction` in the same turn of the event loop
// are run one after another, each in a savepoint of one transaction, and committed once.
//
// Each keeps its own outcome: a member that fails is rolled back to its savepoint, alone, and
// answers its error at once; the others answer once the commit is done, so no answer tells of a
// write that is not committed. A commit that fails fails every member it carried. (A member's error
// may come from what an earlier member of its group wrote, a code already taken say; should that
// group's commit then fail, the error told of a row that never was: as rare as a failed commit.) A member is run
// when the group begins (at setImmediate, after the poll phase that brought it) or, when it
// arrives while a group runs, in that group; the group commits as soon as no member waits. The
// group holds the connection's turn throughout: its savepoints run directly on the connection, and a
// member may run a statement written out once there too (statementsOf), without Kysely's promises.
// So a member must await every statement it starts before its promise settles: one left waiting in
// Kysely's queue would run after the member's savepoint is released, in the next member's.
import type { Kysely, Transaction } from 'kysely';
import type { Database, Db } from '../types.js';
import type { DirectStatements } from './connection.js';
import type { DeferredSearchIndex } from './deferred-search.js';

/** Members at most in one commit: a longer group would hold back the answers of its first ones. */
export const GROUP_LIMIT = 64;

interface Member {
  db: Kysely<Database>;
  fn: (trx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

const SAVEPOINT = 'savepoint furrow_member';
const RELEASE = 'release furrow_member';
const ROLLBACK_TO = 'rollback to furrow_member';

export class GroupCommit {
  private queue: Member[] = [];
  private scheduled = false;
  private running = false;
  /** The running group's transaction, while its members run (see statementsOf). */
  private current: Transaction<Database> | undefined;

  /**
   * @param inTransaction whether the connection has a transaction open (SQLite's own view)
   * @param searchIndex the group's new rows of searched tables, indexed once before it commits
   * @param statements the connection's statements, run synchronously (the group holds its turn)
   */
  constructor(
    private readonly inTransaction: () => boolean,
    private readonly searchIndex: DeferredSearchIndex,
    private readonly statements: DirectStatements,
  ) {}

  /**
   * For a member's transaction (the Kysely instance it was given), the connection's statements, to
   * run at once without Kysely's promises: the group holds the connection's turn while its members
   * run, one after another, so nothing else can be on it. Undefined for any other instance, whose
   * statements must wait for their turn.
   */
  statementsOf(db: Db): DirectStatements | undefined {
    return db === this.current ? this.statements : undefined;
  }

  /** Runs fn in the next group's transaction; resolves once that transaction has committed. */
  run<R>(db: Kysely<Database>, fn: (trx: Transaction<Database>) => Promise<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ db, fn, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.runGroup();
    });
  }

  private async runGroup(): Promise<void> {
    const first = this.queue[0];
    if (first === undefined || this.running) return;
    this.running = true;
    const done: { member: Member; value: unknown }[] = [];
    let begun = false;
    try {
      await first.db.transaction().execute(async (trx) => {
        begun = true;
        this.searchIndex.begin();
        // Noting ends inside the transaction whatever happens: when it ends early, the statement
        // waiting for the connection runs as soon as it is rolled back, before this group's finally.
        try {
          await this.runMembers(trx, done);
          // What the members inserted into searched tables, into the full-text indexes at once. A
          // failure here fails the group, as its commit would.
          for (const statement of this.searchIndex.takeStatements()) await trx.executeQuery(statement);
        } finally {
          this.searchIndex.end();
        }
      });
    } catch (err) {
      // The transaction could not begin (the write lock stayed taken): each waiting member would
      // have met the same. Else the commit failed, or the transaction ended early: every member it
      // carried fails; those not yet run wait for the next group.
      const failed = begun ? done.map(({ member }) => member) : this.queue.splice(0);
      for (const member of failed) member.reject(err);
      done.length = 0;
    } finally {
      this.running = false;
      for (const { member, value } of done) member.resolve(value);
      if (this.queue.length > 0) this.schedule();
    }
  }

  /** Runs the members waiting, and those that arrive meanwhile, each in a savepoint of `trx`. */
  private async runMembers(
    trx: Transaction<Database>,
    done: { member: Member; value: unknown }[],
  ): Promise<void> {
    const { statements } = this;
    this.current = trx;
    try {
      let count = 0;
      for (let member = this.queue.shift(); member !== undefined; member = this.next(++count)) {
        let value: unknown;
        try {
          statements.run(SAVEPOINT, []);
          value = await member.fn(trx);
          statements.run(RELEASE, []);
        } catch (err) {
          member.reject(err);
          // SQLite ends the whole transaction itself after some errors (a full disk, an I/O
          // error): the members before it are gone too, and the group ends with that error.
          if (!this.inTransaction()) throw err;
          statements.run(ROLLBACK_TO, []);
          statements.run(RELEASE, []);
          continue;
        }
        done.push({ member, value });
      }
    } finally {
      this.current = undefined;
    }
  }

  /** The next member of this group, if one waits and the group has room. */
  private next(members: number): Member | undefined {
    return members < GROUP_LIMIT ? this.queue.shift() : undefined;
  }
}
