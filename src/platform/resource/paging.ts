// Lists answer a page: the page and pageLimit parameters, the page's items as a plain array, and the
// paging headers (X-Total-Count, Link). Every list route answers through pageAnswer.

import type { FastifyReply, FastifyRequest } from 'fastify';
import qs from 'qs';
import { type Static, type TProperties, Type } from 'typebox';
import { COUNT_LIMIT } from '../db/records.js';
import { tokenOf } from '../http/auth.js';
import type { PageQuery } from './context.js';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 1000;

export const PageQueryProperties = {
  page: Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0, description: 'Page number, from 0' }),
  pageLimit: Type.Integer({
    minimum: 1,
    maximum: MAX_PAGE_LIMIT,
    default: DEFAULT_PAGE_LIMIT,
    description: `Items per page (default ${DEFAULT_PAGE_LIMIT}, at most ${MAX_PAGE_LIMIT})`,
  }),
};

/** A list's query: page and pageLimit, then the list's own parameters; others are let through. */
export function listQuery<P extends TProperties>(properties: P) {
  return Type.Object({ ...PageQueryProperties, ...properties }, { additionalProperties: true });
}

/** A list's query as validated: page, pageLimit and the list's own parameters. */
export type ListQueryOf<P extends TProperties> = PageQuery & Static<ReturnType<typeof listQuery<P>>>;

/** A page of a list: its items, the matches in all when known, and whether a page follows. */
export interface ListAnswer {
  items: unknown[];
  total: number | undefined;
  hasNext: boolean;
}

/** What the paging headers of every list say, for the OpenAPI descriptions. */
export const PAGING_DESCRIPTION =
  'Paging from page 0; Link (RFC 8288) holds the first, prev, next and last pages and X-Total-Count ' +
  `the number of matching records. A filtered list matching more than ${COUNT_LIMIT.toLocaleString('en')} ` +
  'records leaves out X-Total-Count and the last link (counting them all would cost every request); ' +
  'follow next until it is absent.';

/** The answer of a list route: the page's paging headers, then its items. */
export function pageAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  query: PageQuery,
  page: ListAnswer,
): unknown[] {
  setPagingHeaders(request, reply, query, page);
  return page.items;
}

/** X-Total-Count (when known) and Link: first, prev, next (when a page follows) and last (when known). */
export function setPagingHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  query: PageQuery,
  page: { total: number | undefined; hasNext: boolean },
) {
  const { pageLimit } = query;
  const { total, hasNext } = page;
  const last = total === undefined ? undefined : Math.max(0, Math.ceil(total / pageLimit) - 1);
  const base = request.url.split('?')[0] ?? '';
  // The request's own query (never its token, under whatever key it came: `??token=` parses as
  // the key `?token`), with page and pageLimit set per link; one object for every link rather than
  // a spread copy each (see the crop presenter).
  const token = tokenOf(request);
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request.query as Record<string, unknown>)) {
    if (key === 'token') continue;
    if (token !== undefined && JSON.stringify(value)?.includes(token)) continue;
    params[key] = value;
  }
  params.page = query.page;
  params.pageLimit = pageLimit;
  const link = (n: number, rel: string) => {
    params.page = n;
    return `<${base}?${qs.stringify(params)}>; rel="${rel}"`;
  };
  const links = [link(0, 'first')];
  if (query.page > 0)
    links.push(link(last === undefined ? query.page - 1 : Math.min(query.page - 1, last), 'prev'));
  if (hasNext) links.push(link(query.page + 1, 'next'));
  if (last !== undefined) {
    links.push(link(last, 'last'));
    reply.header('x-total-count', String(total));
  }
  reply.header('link', links.join(', '));
}
