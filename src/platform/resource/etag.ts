// Optimistic concurrency for the resource routes (RFC 9110 §8.8.3, §13.1): a record's version is a
// hash of its detail as the service presents it, sent as a strong ETag. If-None-Match on a detail
// answers 304; If-Match on PUT and DELETE compares with the record read in the write's own
// transaction, so a check and its write cannot be split by another writer (see docs/decisions.md).
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TProperties, Type } from 'typebox';
import { isPostgresDb } from '../db/database.js';
import type { Scope } from '../db/scope.js';
import { AppError } from '../errors.js';
import type { RequestContext } from './context.js';

/** The strong entity tag of a presented record: 27 base64url characters of its SHA-256, quoted. */
export function entityTag(record: unknown): string {
  const json = JSON.stringify(record, (_key, value) =>
    typeof value === 'bigint' ? value.toString() : value,
  );
  return `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"`;
}

interface EntityTag {
  weak: boolean;
  /** The quoted opaque tag, as it appears after any W/. */
  opaque: string;
}

/**
 * The entity tags of an If-Match or If-None-Match header: '*', or the list (several header lines
 * arrive joined by commas). Anything that is not an entity tag is left out, so it matches nothing.
 */
export function parseEntityTags(header: string | string[] | undefined): '*' | EntityTag[] {
  const value = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim();
  if (value === '*') return '*';
  const tags: EntityTag[] = [];
  for (const match of value.matchAll(/(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/g)) {
    tags.push({ weak: match[1] !== undefined, opaque: match[2] as string });
  }
  return tags;
}

/** If-None-Match: weak comparison (a W/ tag matches its strong twin); '*' matches any record. */
export function noneMatchHits(header: string | string[] | undefined, tag: string): boolean {
  const tags = parseEntityTags(header);
  return tags === '*' || tags.some((t) => t.opaque === tag);
}

/** If-Match: strong comparison (a W/ tag never matches); '*' matches any record. */
export function ifMatchHolds(header: string | string[] | undefined, tag: string): boolean {
  const tags = parseEntityTags(header);
  return tags === '*' || tags.some((t) => !t.weak && t.opaque === tag);
}

export const preconditionFailed = () => new AppError('http.precondition_failed', 412);

/** Serialization failures and deadlocks of PostgreSQL: the transaction is run again. */
const RETRIED_CODES = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 10;

function isRetriedFailure(err: unknown): boolean {
  for (let depth = 0, current = err; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    if (RETRIED_CODES.has((current as { code?: unknown }).code as string)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * A write under If-Match: reads the record (`read`, the detail), compares its tag with the header
 * and only then writes (`write`, the service's own update or delete, which joins this transaction).
 * A missing record stays the read's 404. SQLite transactions begin immediate, so writers take
 * turns. On PostgreSQL the transaction is REPEATABLE READ: a write to a row that another
 * transaction changed after this one read it fails with a serialization error, and the whole
 * request runs again, reading the new version, which then no longer matches: 412.
 */
export async function writeIfMatch<R>(
  ctx: RequestContext,
  ifMatch: string | string[],
  read: (tx: RequestContext) => Promise<unknown>,
  write: (tx: RequestContext) => Promise<R>,
): Promise<R> {
  const attempt = async (scope: Scope): Promise<R> => {
    const tx: RequestContext = { ...ctx, scope };
    if (!ifMatchHolds(ifMatch, entityTag(await read(tx)))) throw preconditionFailed();
    return write(tx);
  };
  const { db, tenantId } = ctx.scope;
  if (db.isTransaction) return attempt(ctx.scope);
  const postgres = isPostgresDb(db);
  for (let n = 1; ; n++) {
    try {
      const transaction = postgres ? db.transaction().setIsolationLevel('repeatable read') : db.transaction();
      return await transaction.execute((trx) => attempt({ db: trx, tenantId }));
    } catch (err) {
      if (!postgres || n >= MAX_ATTEMPTS || !isRetriedFailure(err)) throw err;
    }
  }
}

const ETAG_DESCRIPTION = "The record's version: a strong entity tag that changes whenever the record does";

/** The ETag header of a documented answer. */
export const ETagHeader = { ETag: Type.String({ description: ETAG_DESCRIPTION }) };

/** A documented answer that carries the record's ETag. */
export function withETag<S extends object>(schema: S): S {
  return { ...schema, headers: ETagHeader };
}

/** The 304 answer of a detail: no body, the ETag. */
export const NotModified = {
  type: 'null',
  description: 'Not Modified: If-None-Match names the current version; no body',
  headers: ETagHeader,
} as const;

export const IfMatchHeader = Type.String({
  description:
    'Change or delete only if the record is still this version (its ETag; `*`: any); otherwise 412',
});

export const IfNoneMatchHeader = Type.String({
  description: 'Answer 304 without a body when the record is still this version (its ETag; `*`: any)',
});

/** The request headers of a detail GET. */
export const DetailReadHeaders = Type.Object({ 'if-none-match': Type.Optional(IfNoneMatchHeader) });

/** Sets the record's ETag on the answer; true when If-None-Match names it (then answer 304). */
export function answerETag(request: FastifyRequest, reply: FastifyReply, record: unknown): boolean {
  const tag = entityTag(record);
  reply.header('etag', tag);
  const ifNoneMatch = request.headers['if-none-match'];
  return ifNoneMatch !== undefined && noneMatchHits(ifNoneMatch, tag);
}

/**
 * What If-Match adds to a resource's PUT and DELETE when it has a detail to compare with (`get`):
 * the header, the 412 answer, and the write, checked when the request sends the header.
 */
export function ifMatchSupport<Id>(get: ((ctx: RequestContext, id: Id) => Promise<unknown>) | undefined) {
  const headers: TProperties = get ? { 'if-match': Type.Optional(IfMatchHeader) } : {};
  return {
    headers,
    errors: get ? [412] : [],
    write<R>(
      request: FastifyRequest,
      ctx: RequestContext,
      id: Id,
      write: (tx: RequestContext) => Promise<R>,
    ): Promise<R> {
      const header = request.headers['if-match'];
      if (header === undefined || get === undefined) return write(ctx);
      return writeIfMatch(ctx, header, (tx) => get(tx, id), write);
    },
  };
}
