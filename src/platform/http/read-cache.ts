// Read answers kept in memory on SQLite: a list or detail read asked again, by the same person in
// the same language, with nothing it read written since, is answered with the bytes and headers it
// had, without the database. Exact, not for a while: the one connection sees every write of the
// process the moment it runs (sqlite/table-versions.ts), and `PRAGMA data_version` every commit of
// another process; an answer that changes with time alone (a task falling overdue) says when
// (`changesAt`). PostgreSQL has no such cache: other processes write there unseen.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { Changes } from '../db/sqlite/changes.js';
import type { ReadSet, TableVersions } from '../db/sqlite/table-versions.js';
import { readCacheAnswers } from '../metrics.js';
import { authOf } from './auth.js';

/** Bytes of answers kept at most (their bodies and headers); past this the oldest go first. */
export const READ_CACHE_BYTES = 8 * 1024 * 1024;
/** An answer bigger than this is not kept: it would push out many smaller ones. */
const LARGEST_KEPT = 256 * 1024;
/** Headers of an answer that belong to its request, not to the answer. */
const REQUEST_HEADERS = new Set(['x-request-id', 'date', 'connection', 'keep-alive', 'content-length']);

/** The tables the request's person and tenant (auth.ts) come from. */
const AUTH_TABLES = ['users', 'tenants'];

interface Entry {
  body: string;
  headers: [string, string | number | string[]][];
  versions: { epoch: number; tables: [string, number][] };
  external: number;
  /** Clock time from which the answer may read differently with no write (Infinity: never). */
  until: number;
  bytes: number;
}

/** A read being answered the long way, to be kept when it ends. */
interface Miss {
  key: string;
  reads: ReadSet;
  external: number;
  until: number;
  ended: boolean;
}

const misses = new WeakMap<FastifyRequest, Miss>();
const hit = readCacheAnswers.labels('hit');
const miss = readCacheAnswers.labels('miss');

export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly tables: TableVersions,
    private readonly changes: Changes,
    private readonly clock: Clock,
    private readonly maxBytes = READ_CACHE_BYTES,
  ) {}

  /**
   * A route's preHandler: answers from the cache when it can (and the request ends here), else
   * starts noting what the route reads. Conditional requests take the long way (they answer 304).
   */
  answer(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
    if (request.headers['if-none-match'] !== undefined) return undefined;
    const key = keyOf(request);
    const entry = this.entries.get(key);
    const external = this.changes.externalVersion();
    if (entry !== undefined) {
      if (
        entry.external === external &&
        entry.until > this.clock.now() &&
        this.tables.unchanged(entry.versions)
      ) {
        hit.inc();
        reply.code(200);
        for (const [name, value] of entry.headers) reply.header(name, value);
        return reply.send(entry.body);
      }
      this.drop(key, entry);
    }
    miss.inc();
    const reads = this.tables.beginReading();
    // The person and the tenant came from the token check, which may not read them now (its cache):
    // an answer may show them, so a change to either drops it.
    for (const table of AUTH_TABLES) reads.tables.add(table);
    misses.set(request, { key, reads, external, until: Infinity, ended: false });
    return undefined;
  }

  /** The answer being made reads differently from `at` on with no write (a task falls overdue then). */
  changesAt(request: FastifyRequest, at: number): void {
    const pending = misses.get(request);
    if (pending !== undefined && at < pending.until) pending.until = at;
  }

  /** A route's onSend: keeps a 200 answer when nothing it read was written while it was made. */
  keep(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
    const pending = misses.get(request);
    if (pending === undefined || pending.ended) return;
    this.end(request);
    if (reply.statusCode !== 200 || typeof payload !== 'string' || payload.length > LARGEST_KEPT) return;
    const versions = this.tables.versionsOf(pending.reads);
    if (versions === undefined || pending.until <= this.clock.now()) return;
    const headers: Entry['headers'] = [];
    let bytes = payload.length + 200;
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value === undefined || REQUEST_HEADERS.has(name)) continue;
      headers.push([name, value]);
      bytes += name.length + String(value).length;
    }
    const old = this.entries.get(pending.key);
    if (old !== undefined) this.drop(pending.key, old);
    this.entries.set(pending.key, {
      body: payload,
      headers,
      versions,
      external: pending.external,
      until: pending.until,
      bytes,
    });
    this.bytes += bytes;
    // Oldest first: a Map keeps its keys in insertion order.
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(oldest, entry);
    }
  }

  /** A route's onResponse and onRequestAbort: stops noting what the request reads. */
  end(request: FastifyRequest): void {
    const pending = misses.get(request);
    if (pending === undefined || pending.ended) return;
    pending.ended = true;
    this.tables.endReading(pending.reads);
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}

/**
 * The hooks of a list or detail route whose answers may be kept. The cache answers at onRequest,
 * after the app's auth hook: a kept answer was made for this very URL by the same person, so
 * validation and the input checks would find what they found then.
 */
export function readCacheHooks(cache: ReadCache) {
  return {
    // A callback hook: a hit is answered in the same turn, without a promise. Sent here, the
    // request ends without `done`.
    onRequest: (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      if (cache.answer(request, reply) === undefined) done();
    },
    onSend: (
      request: FastifyRequest,
      reply: FastifyReply,
      payload: unknown,
      done: (err: null, value: unknown) => void,
    ) => {
      cache.keep(request, reply, payload);
      done(null, payload);
    },
    onResponse: (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
      cache.end(request);
      done();
    },
    onRequestAbort: (request: FastifyRequest, done: () => void) => {
      cache.end(request);
      done();
    },
  };
}

/**
 * Who asks, in which language, for what: the tenant, the person and their role, the API key, the
 * language of the answer (auth.ts) and the URL with its query.
 */
function keyOf(request: FastifyRequest): string {
  const auth = authOf(request);
  return `${auth.tenant.id} ${auth.user.id} ${auth.user.role} ${auth.apiKey?.id ?? 0} ${request.language}\n${
    request.method
  } ${request.url}`;
}
