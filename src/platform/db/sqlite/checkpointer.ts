// WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the commit that
// takes the WAL past 1,000 pages, on the connection's thread, and ends with an fsync of the WAL and
// of the database file: the server's one thread waits for the disk, every request with it. A server
// process hands checkpoints to a worker thread with a connection of its own, which runs a PASSIVE
// checkpoint (it never waits for the writer nor makes it wait) every CHECKPOINT_EVERY_MS; the main
// connection's automatic checkpoints are off while the thread runs, and on again if it stops.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** How often the thread checkpoints: pages written again meanwhile are copied once. */
export const CHECKPOINT_EVERY_MS = 1_000;
/** The main connection's automatic checkpoint, in pages, when no thread does it (SQLite's default). */
const AUTO_CHECKPOINT_PAGES = 1_000;
/** After a checkpoint, a WAL file larger than this is cut back to it (bytes). */
const WAL_SIZE_KEPT = 64 * 1024 * 1024;

// The thread's code: CommonJS, given as text so that it runs the same from dist/ and from src/.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ checkpointed: result.checkpointed });
  } catch (err) {
    parentPort.postMessage({ error: err.message });
  }
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface CheckpointerEvents {
  /** Frames copied into the database file by a checkpoint of the thread. */
  onCheckpoint?: (frames: number) => void;
  /** A checkpoint failed (the next one is tried all the same). */
  onError?: (message: string) => void;
}

export class WalCheckpointer {
  private readonly worker: Worker;
  private stopped = false;
  private readonly exited: Promise<void>;

  /** Starts checkpointing `file` (a WAL database) on a thread, and turns `sqlite`'s own off. */
  constructor(
    file: string,
    private readonly sqlite: SQLite.Database,
    events: CheckpointerEvents = {},
    everyMs = CHECKPOINT_EVERY_MS,
  ) {
    sqlite.pragma(`journal_size_limit = ${WAL_SIZE_KEPT}`);
    sqlite.pragma('wal_autocheckpoint = 0');
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(THREAD, {
      eval: true,
      workerData: { file, driver, everyMs },
      // A loop of one pragma: a small heap bounds it (the isolate itself is about 8 MB whatever).
      resourceLimits: {
        maxYoungGenerationSizeMb: 1,
        maxOldGenerationSizeMb: 8,
        codeRangeSizeMb: 2,
        stackSizeMb: 1,
      },
    });
    // The thread must not keep a process alive that has nothing else to do.
    this.worker.unref();
    this.worker.on('message', (message: { checkpointed?: number; error?: string }) => {
      if (message.error !== undefined) events.onError?.(message.error);
      else if (message.checkpointed) events.onCheckpoint?.(message.checkpointed);
    });
    this.worker.on('error', (err) => events.onError?.(err.message));
    this.exited = new Promise((resolve) => {
      this.worker.once('exit', () => {
        // Stopped or failed: the connection checkpoints for itself again.
        if (this.sqlite.open) this.sqlite.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
        resolve();
      });
    });
  }

  /** Ends the thread; the connection checkpoints for itself from then on. */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      // Held by the thread until it has ended, which an unreferenced thread would not be.
      this.worker.ref();
      this.worker.postMessage('stop');
    }
    await this.exited;
  }
}
