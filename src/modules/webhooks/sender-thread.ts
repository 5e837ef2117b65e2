// The sending thread's side of a threaded sender (threaded-sender.ts): a sender of its own
// (sender.ts: undici, the timeout, the address rule, the CA file) that takes batches of requests
// from the process's main thread and answers their results in batches, the results of one turn of
// its event loop together.
import type { MessagePort } from 'node:worker_threads';
import { AllowList } from './address-guard.js';
import { createSender, type SendResult } from './sender.js';
import { notSent } from './threaded-sender.js';

export interface SenderThreadOptions {
  timeoutMs: number;
  allowPrivateHosts: readonly string[];
  caFile?: string | undefined;
}

/** A batch of requests: id, url, headers, body for each, one after another. */
export type SendBatch = (number | string | Record<string, string>)[];
/** A batch of results: id and result for each. */
export type ResultBatch = (number | SendResult)[];

export type ToSenderThread = { sends: SendBatch } | { close: true };
export type FromSenderThread = { results: ResultBatch } | { closed: true };

export function runSenderThread(port: MessagePort, options: SenderThreadOptions): void {
  const sender = createSender({
    timeoutMs: options.timeoutMs,
    allowList: new AllowList(options.allowPrivateHosts),
    caFile: options.caFile,
  });
  let results: ResultBatch = [];
  const flush = () => {
    if (results.length === 0) return;
    const batch = results;
    results = [];
    port.postMessage({ results: batch } satisfies FromSenderThread);
  };
  const answer = (id: number, result: SendResult) => {
    if (results.length === 0) setImmediate(flush);
    results.push(id, result);
  };
  port.on('message', (message: ToSenderThread) => {
    if ('close' in message) {
      // The attempts still in flight end first (undici's close waits for them), and their results
      // go before the port closes.
      void sender.close().then(() => {
        flush();
        port.postMessage({ closed: true } satisfies FromSenderThread);
        port.close();
      });
      return;
    }
    const { sends } = message;
    for (let i = 0; i < sends.length; i += 4) {
      const id = sends[i] as number;
      // send answers every failure as a result; a throw would be a defect, answered as one.
      sender
        .send(sends[i + 1] as string, sends[i + 2] as Record<string, string>, sends[i + 3] as string)
        .then(
          (result) => answer(id, result),
          (err: Error) => answer(id, notSent(`the sending thread failed: ${err.message}`)),
        );
    }
  });
}
