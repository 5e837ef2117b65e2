// Optimistic concurrency for the resource routes (RFC 9110 §8.8.3, §13.1): a record's version is a
// hash of its detail as the service presents it, sent as a strong ETag. If-None-Match on a detail
// answers 304; If-Match on PUT and DELETE compares with the record read under its row lock in the
// write's own transaction, so no other writer comes between a check and its write
// (docs/decisions.md).
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TProperties, Type } from 'typebox';
import { inTransaction } from '../db/scope.js';
import { AppError } from '../errors.js';
import type { RequestContext } from './context.js';

/** The strong entity tag of a presented record: 27 base64url characters of its SHA-256, quoted. */
export function entityTag(record: unknown): string {
  // A replacer would slow every stringify down by a third; only a record holding a bigint needs one.
  let json: string;
  try {
    json = JSON.stringify(record);
  } catch {
    json = JSON.stringify(record, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
  }
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

/**
 * A write under If-Match, in one transaction: holds the record's row (`lock`), reads the record
 * (`read`, the detail), compares its tag with the header, and only then writes (`write`, the
 * service's own update or delete, which joins the transaction). Another writer of the row waits
 * until this one commits and then sees the new version; a missing record stays the read's 404.
 */
export function writeIfMatch<R>(
  ctx: RequestContext,
  ifMatch: string | string[],
  steps: {
    lock: (tx: RequestContext) => Promise<void>;
    read: (tx: RequestContext) => Promise<unknown>;
    write: (tx: RequestContext) => Promise<R>;
  },
): Promise<R> {
  return inTransaction(ctx.scope, async (scope) => {
    const tx: RequestContext = { ...ctx, scope };
    await steps.lock(tx);
    if (!ifMatchHolds(ifMatch, entityTag(await steps.read(tx)))) throw preconditionFailed();
    return steps.write(tx);
  });
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

/** The operations of a resource's service that If-Match uses. */
export interface ConditionalService<Id> {
  get?(ctx: RequestContext, id: Id): Promise<unknown>;
  lock?(ctx: RequestContext, id: Id): Promise<void>;
  /** lock and get in one: the detail of a record held for the rest of the caller's transaction. */
  lockedGet?(ctx: RequestContext, id: Id): Promise<unknown>;
  update?(ctx: RequestContext, id: Id, input: never): Promise<unknown>;
  remove?(ctx: RequestContext, id: Id): Promise<void>;
}

/**
 * What If-Match adds to a resource's PUT and DELETE when it has a detail to compare with: the
 * header, the 412 answer, and the write, checked when the request sends the header. A service
 * with a detail and a write must hold the record's row (`lock`), or the check could be split from
 * the write: that is a mistake found when the routes are registered.
 */
export function ifMatchSupport<Id>(noun: string, service: ConditionalService<Id>) {
  const { get, lock } = service;
  if (get && !lock && (service.update || service.remove)) {
    throw new Error(`The ${noun} service reads and writes records but has no lock(ctx, id) for If-Match`);
  }
  const headers: TProperties = get ? { 'if-match': Type.Optional(IfMatchHeader) } : {};
  return {
    headers,
    errors: get ? [412] : [],
    write<R>(
      request: FastifyRequest,
      ctx: RequestContext,
      id: Id,
      write: (tx: RequestContext) => Promise<R>,
    ) {
      const header = request.headers['if-match'];
      if (header === undefined || !get || !lock) return write(ctx);
      const { lockedGet } = service;
      if (lockedGet) {
        return writeIfMatch(ctx, header, { lock: async () => {}, read: (tx) => lockedGet(tx, id), write });
      }
      return writeIfMatch(ctx, header, { lock: (tx) => lock(tx, id), read: (tx) => get(tx, id), write });
    },
  };
}
