// The one way the API declares a resource: list, detail, create, update and delete routes with the
// specification's shapes (plain-array lists with X-Total-Count and Link, detail as an array of one
// or {data}, 201 + Location on create, update confirmation or Prefer: return=representation,
// soft delete). A resource file gives its paths, schemas and service functions; nothing else.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import qs from 'qs';
import { type Static, type TObject, type TSchema, Type } from 'typebox';
import type { Clock } from '../clock.js';
import type { PageQuery, RequestContext } from '../context.js';
import { COUNT_LIMIT } from '../db/records.js';
import type { Db } from '../db/types.js';
import { type FieldError, validationFailed } from '../errors.js';
import { translate } from '../i18n.js';
import { authOf, requireOwner, scopeOf } from './auth.js';
import { Id, MAX_JSON_DEPTH, nestsDeeperThan } from './fields.js';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 1000;

export type { PageQuery, RequestContext } from '../context.js';

export const PageQueryProperties = {
  page: Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0, description: 'Page number, from 0' }),
  pageLimit: Type.Integer({
    minimum: 1,
    maximum: MAX_PAGE_LIMIT,
    default: DEFAULT_PAGE_LIMIT,
    description: `Items per page (default ${DEFAULT_PAGE_LIMIT}, at most ${MAX_PAGE_LIMIT})`,
  }),
};

export const Confirmation = Type.Object({
  status_code: Type.Integer({ description: '0: success' }),
  message: Type.String(),
});

export const ErrorAnswer = Type.Array(
  Type.Object({
    meta: Type.Object({
      status_code: Type.Integer(),
      message: Type.String(),
      errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    }),
    data: Type.Array(Type.Unknown(), { maxItems: 0 }),
  }),
  { description: 'The error shape' },
);

export interface ResourceDefinition<
  Item extends TSchema,
  ListItem extends TSchema,
  Create extends TSchema,
  Update extends TSchema,
  Query extends TObject,
> {
  /** OpenAPI tag and the noun of the summaries ("crop"). */
  tag: string;
  noun: string;
  /** Collection path, e.g. /api/crop/crop; the detail path is `${path}/:id`. */
  path: string;
  /** Also answer the detail path without the slash (`/api/crop/season7`). */
  gluedDetailPath?: boolean;
  /** Detail and create answers: an array of one (default) or `{data: record}`. */
  envelope?: 'array' | 'data';
  /** Request field aliases of the original clients, e.g. {'parent-id': 'parent_id'}. */
  aliases?: Record<string, string>;
  /** Only owners create, change or delete (staff: 403). */
  ownerOnlyWrites?: boolean;
  description?: string;
  schemas: {
    /** Detail, create and update form. */
    item: Item;
    /** List form (defaults to the detail form). */
    listItem?: ListItem;
    create: Create;
    /** Omit for resources that cannot be updated (PUT answers 405). */
    update?: Update;
    /** Extra query parameters of the list, next to page and pageLimit. */
    query?: Query;
  };
  service: {
    list(ctx: RequestContext, query: PageQuery & Static<Query>): Promise<ListAnswer>;
    get(ctx: RequestContext, id: number): Promise<unknown>;
    create(ctx: RequestContext, input: Static<Create>): Promise<{ id: number }>;
    update?(ctx: RequestContext, id: number, input: Static<Update>): Promise<unknown>;
    remove(ctx: RequestContext, id: number): Promise<void>;
  };
}

/** A page of a list: its items, the matches in all when known, and whether a page follows. */
export interface ListAnswer {
  items: unknown[];
  total: number | undefined;
  hasNext: boolean;
}

export interface ResourceDeps {
  db: Db;
  clock: Clock;
}

const IdParams = Type.Object({ id: Id('Record id') });

/** A Fastify plugin with the resource's routes: `app.register(resourceRoutes(def), { deps })`. */
export function resourceRoutes<
  Item extends TSchema,
  ListItem extends TSchema,
  Create extends TSchema,
  Update extends TSchema,
  Query extends TObject,
>(def: ResourceDefinition<Item, ListItem, Create, Update, Query>) {
  return async (app: FastifyInstance, { deps }: { deps: ResourceDeps }) => {
    const { path, noun, tag, schemas, service } = def;
    const context = (request: FastifyRequest): RequestContext => ({
      scope: scopeOf(request, deps.db),
      clock: deps.clock,
      user: authOf(request).user,
    });
    const detail = (record: unknown) => (def.envelope === 'data' ? { data: record } : [record]);
    const detailSchema =
      def.envelope === 'data'
        ? Type.Object({ data: schemas.item })
        : Type.Array(schemas.item, { maxItems: 1 });
    const errors = (...codes: number[]) => Object.fromEntries(codes.map((code) => [code, ErrorAnswer]));
    // onRequest, after the app's auth hook: staff get a 403 before their body is even validated.
    const writeGuard = def.ownerOnlyWrites ? { onRequest: requireOwner } : {};
    const writeErrors = def.ownerOnlyWrites ? [401, 403, 404, 422] : [401, 404, 422];
    // Text and number checks of every route (input-checks.ts) run after this step.
    const preValidation = async (request: FastifyRequest) => {
      if (request.body !== undefined) {
        request.body = applyAliases(request.body, def.aliases);
        checkRawBody(request.body, request.routeOptions.schema?.body as TSchema | undefined);
      }
    };

    const Query = Type.Object(
      { ...PageQueryProperties, ...(schemas.query?.properties ?? {}) },
      { additionalProperties: true },
    );
    app.get(
      path,
      {
        preValidation,
        schema: {
          tags: [tag],
          summary: `List ${noun} records`,
          description: `A plain JSON array, newest first. ${PAGING_DESCRIPTION}`,
          querystring: Query,
          response: { 200: Type.Array(schemas.listItem ?? schemas.item), ...errors(401, 422) },
        },
      },
      async (request, reply) => {
        const query = request.query as PageQuery & Static<Query>;
        const { items, total, hasNext } = await service.list(context(request), query);
        setPagingHeaders(request, reply, query, { total, hasNext });
        return items;
      },
    );

    const detailPaths = [`${path}/:id`, ...(def.gluedDetailPath ? [`${path}:id(^\\d+$)`] : [])];
    for (const [index, detailPath] of detailPaths.entries()) {
      // The form without the slash (`/api/crop/season7`) is the same operation, documented as such.
      const alt = index > 0 ? ` Same as ${path}/{id}.` : def.gluedDetailPath ? ` Also at ${path}{id}.` : '';
      app.get(
        detailPath,
        {
          preValidation,
          schema: {
            tags: [tag],
            summary: `One ${noun}`,
            description: `${def.envelope === 'data' ? 'The record under `data`.' : 'An array of one record.'}${alt}`,
            params: IdParams,
            response: { 200: detailSchema, ...errors(401, 404) },
          },
        },
        async (request) => detail(await service.get(context(request), idOf(request))),
      );

      if (schemas.update && service.update) {
        const update = service.update;
        app.put(
          detailPath,
          {
            preValidation,
            ...writeGuard,
            schema: {
              tags: [tag],
              summary: `Change a ${noun}`,
              description:
                'Changes only the fields sent; null clears a field that may be null. Answers ' +
                '[{status_code: 0, message}], or with `Prefer: return=representation` the changed record ' +
                `as an array of one.${alt}`,
              params: IdParams,
              body: schemas.update,
              headers: Type.Object({
                prefer: Type.Optional(Type.String({ description: 'return=representation for the record' })),
              }),
              response: {
                200: Type.Array(Type.Union([Confirmation, schemas.item]), { maxItems: 1 }),
                ...errors(...writeErrors),
              },
            },
          },
          async (request, reply) => {
            const record = await update(context(request), idOf(request), request.body as Static<Update>);
            if (wantsRepresentation(request)) {
              reply.header('preference-applied', 'return=representation');
              return [record];
            }
            return [{ status_code: 0, message: translate('http.updated', request.language) }];
          },
        );
      }

      app.delete(
        detailPath,
        {
          preValidation,
          ...writeGuard,
          schema: {
            tags: [tag],
            summary: `Delete a ${noun}`,
            description: `Soft delete (extension): the record leaves lists and details.${alt}`,
            params: IdParams,
            response: { 200: Type.Array(Confirmation, { maxItems: 1 }), ...errors(...writeErrors) },
          },
        },
        async (request) => {
          await service.remove(context(request), idOf(request));
          return [{ status_code: 0, message: translate('http.deleted', request.language) }];
        },
      );
    }

    app.post(
      path,
      {
        preValidation,
        ...writeGuard,
        schema: {
          tags: [tag],
          summary: `Create a ${noun}`,
          description:
            `HTTP 201 with Location; ${def.envelope === 'data' ? 'the record under `data`' : 'an array of one record'}. ` +
            'JSON or form-encoded body; a client-sent id is ignored.' +
            (def.description ? ` ${def.description}` : ''),
          body: schemas.create,
          response: { 201: detailSchema, ...errors(...writeErrors) },
        },
      },
      async (request, reply) => {
        const record = await service.create(context(request), request.body as Static<Create>);
        reply.code(201).header('location', `${path}/${record.id}`);
        return detail(record);
      },
    );
  };
}

function wantsRepresentation(request: FastifyRequest): boolean {
  const prefer = request.headers.prefer;
  const value = Array.isArray(prefer) ? prefer.join(',') : (prefer ?? '');
  return /(^|[,;\s])return\s*=\s*"?representation"?\s*($|[,;])/i.test(value);
}

/** What the paging headers of every list say, for the OpenAPI descriptions. */
export const PAGING_DESCRIPTION =
  'Paging from page 0; Link (RFC 8288) holds the first, prev, next and last pages and X-Total-Count ' +
  `the number of matching records. A filtered list matching more than ${COUNT_LIMIT.toLocaleString('en')} ` +
  'records leaves out X-Total-Count and the last link (counting them all would cost every request); ' +
  'follow next until it is absent.';

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
  // The request's own query (never its token), with page and pageLimit set per link; one object for
  // every link rather than a spread copy each (see the crop presenter).
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(request.query as Record<string, unknown>)) {
    if (key !== 'token') params[key] = value;
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

/** Copies alias fields to their canonical names, unless the canonical name was sent too. */
function applyAliases(body: unknown, aliases: Record<string, string> | undefined): unknown {
  if (!aliases || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const [alias, canonical] of Object.entries(aliases)) {
    if (Object.hasOwn(copy, alias) && !Object.hasOwn(copy, canonical)) copy[canonical] = copy[alias];
    delete copy[alias];
  }
  return copy;
}

/**
 * Checks on the body as sent, before Ajv's coercion can hide them: a null for a field that may not
 * be null (coercion would turn it into 0, "" or false) and values nested deeper than
 * MAX_JSON_DEPTH levels. Both are 422s naming the field.
 */
function checkRawBody(body: unknown, schema: TSchema | undefined): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
  const properties = (schema as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {};
  const errors: FieldError[] = [];
  for (const [field, value] of Object.entries(body)) {
    const property = Object.hasOwn(properties, field) ? properties[field] : undefined;
    if (value === null && property !== undefined && !allowsNull(property)) {
      errors.push({ field, message: 'field.not_null' });
    } else if (nestsDeeperThan(value)) {
      errors.push({ field, message: 'field.too_deep', params: { limit: MAX_JSON_DEPTH } });
    }
  }
  if (errors.length > 0) throw validationFailed(errors);
}

/** Whether a schema accepts null (a schema that names no type accepts anything). */
function allowsNull(schema: TSchema): boolean {
  const s = schema as { type?: unknown; anyOf?: TSchema[]; oneOf?: TSchema[]; enum?: unknown[] };
  if (s.anyOf) return s.anyOf.some(allowsNull);
  if (s.oneOf) return s.oneOf.some(allowsNull);
  if (s.enum) return s.enum.includes(null);
  if (s.type === undefined) return true;
  return s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null'));
}

function idOf(request: FastifyRequest): number {
  return (request.params as Static<typeof IdParams>).id;
}
