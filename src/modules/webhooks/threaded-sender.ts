// A sender whose HTTP runs on a thread of its own: undici, TLS and the sockets cost about as much of
// the main thread's time per delivery as the claim and the record together, and the main thread
// also serves the API and the database. Requests go to the thread and results come back in batches
// (one message per claim's sends, one per turn of the thread's results), so the hop adds little
// CPU; an answer waits for the main thread's loop to take it. Should the thread stop, its attempts
// in flight end as not sent (an error, recorded and retried like any other) and the next send
// starts a new thread.
import { Worker } from 'node:worker_threads';
import { AllowList } from './address-guard.js';
import { readCaFile } from './ca-file.js';
import type { Sender, SendResult } from './sender.js';
import type { FromSenderThread, SendBatch, SenderThreadOptions, ToSenderThread } from './sender-thread.js';

// The thread's code: CommonJS given as text, which loads the thread's module from the sources
// (through tsx) or from dist/, whichever this file was loaded from. Should that fail, the rejection
// ends the thread ('exit').
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  const { runSenderThread } = await import(workerData.module);
  runSenderThread(parentPort, workerData.options);
})();
`;

const fromSources = import.meta.url.endsWith('.ts');
const THREAD_MODULE = new URL(`./sender-thread.${fromSources ? 'ts' : 'js'}`, import.meta.url).href;

/**
 * Bounds on the thread's heap. 64 attempts in flight hold their bodies, headers and answers' first
 * kilobyte (sockets and TLS buffers live outside it); a thread past these ends, and its attempts in
 * flight with it, rather than grow the process.
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 3, maxOldGenerationSizeMb: 32 };

interface Pending {
  resolve(result: SendResult): void;
}

/** The result of an attempt that never reached its receiver, saying why. */
export function notSent(why: string): SendResult {
  return { ok: false, statusCode: null, error: why, responseExcerpt: null, durationMs: 0 };
}

export interface ThreadedSender extends Sender {
  /** Ends the thread at once, as a crash would: its attempts in flight end as not sent. */
  stopThread(): Promise<void>;
}

export function createThreadedSender(options: SenderThreadOptions): ThreadedSender {
  // A CA file that cannot be read stops the worker at its start, as on the main thread, rather
  // than every thread the sender would start.
  if (options.caFile) readCaFile(options.caFile);
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  let batch: SendBatch = [];
  let closing: Promise<void> | undefined;

  const start = (): Worker => {
    const thread = new Worker(THREAD, {
      eval: true,
      // Not the process's flags (a test's preloads, say): the thread loads only what sending needs.
      execArgv: [],
      workerData: {
        module: THREAD_MODULE,
        tsx: fromSources ? import.meta.resolve('tsx/esm/api') : undefined,
        options,
      },
      resourceLimits: THREAD_LIMITS,
    });
    thread.on('message', (message: FromSenderThread) => {
      if (!('results' in message)) return;
      const { results } = message;
      for (let i = 0; i < results.length; i += 2) {
        const id = results[i] as number;
        const waiting = pending.get(id);
        if (waiting === undefined) continue;
        pending.delete(id);
        waiting.resolve(results[i + 1] as SendResult);
      }
      // An idle thread does not keep the process alive; one with attempts in flight does.
      if (pending.size === 0) thread.unref();
    });
    // An error ends the thread: 'exit' follows and settles what it held, saying why.
    let failure = '';
    thread.on('error', (err) => {
      failure = ` (${err.message.slice(0, 200)})`;
    });
    thread.once('exit', () => {
      if (worker === thread) worker = undefined;
      for (const waiting of pending.values()) {
        waiting.resolve(
          notSent(`the sending thread stopped before the answer${failure}; not known to be sent`),
        );
      }
      pending.clear();
    });
    return thread;
  };

  const flush = () => {
    if (batch.length === 0) return;
    const sends = batch;
    batch = [];
    worker ??= start();
    worker.ref();
    worker.postMessage({ sends } satisfies ToSenderThread);
  };

  return {
    send(url, headers, body) {
      if (closing) return Promise.resolve(notSent('the worker is stopping; not sent'));
      const id = nextId++;
      return new Promise<SendResult>((resolve) => {
        pending.set(id, { resolve });
        if (batch.length === 0) queueMicrotask(flush);
        batch.push(id, url, headers, body);
      });
    },
    async stopThread() {
      await worker?.terminate();
    },
    close() {
      closing ??= (async () => {
        // Sends of this turn go first; the thread then ends once every attempt has its answer.
        flush();
        const thread = worker;
        if (thread === undefined) return;
        const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
        // Held by the thread until it has ended, which an idle (unreferenced) thread would not be:
        // a process with nothing else to wait for would exit in the middle of its shutdown.
        thread.ref();
        thread.postMessage({ close: true } satisfies ToSenderThread);
        await exited;
      })();
      return closing;
    },
  };
}

/**
 * A delivery worker's sender: on a thread of its own, or with `thread` false (WEBHOOK_SEND_THREAD=off)
 * on the calling thread, for a machine with one core, where a thread only adds its memory. The
 * calling thread loads undici (about 20 MB) only then, at the first send.
 */
export function createDeliverySender(options: SenderThreadOptions & { thread: boolean }): Sender {
  const { thread, ...rest } = options;
  if (thread) return createThreadedSender(rest);
  if (rest.caFile) readCaFile(rest.caFile);
  let loaded: Promise<Sender> | undefined;
  const sender = () =>
    (loaded ??= import('./sender.js').then(({ createSender }) =>
      createSender({
        timeoutMs: rest.timeoutMs,
        allowList: new AllowList(rest.allowPrivateHosts),
        caFile: rest.caFile,
      }),
    ));
  return {
    send: async (url, headers, body) => {
      let loadedSender: Sender;
      try {
        loadedSender = await sender();
      } catch (err) {
        // Tried again at the next send; this attempt is a failure that says why.
        loaded = undefined;
        return notSent(`the sender could not be loaded (${(err as Error).message}); not sent`);
      }
      return loadedSender.send(url, headers, body);
    },
    close: async () => {
      const loading = loaded;
      if (loading) await (await loading.catch(() => undefined))?.close();
    },
  };
}
