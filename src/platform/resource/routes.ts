// The one way the API declares a resource: list, detail, create, update and delete routes with the
// specification's shapes (plain-array lists with X-Total-Count and Link, detail as an array of one
// or {data}, 201 + Location on create, update confirmation or Prefer: return=representation,
// soft delete), and the routes beyond those five (actions.ts). A resource gives its paths, schemas
// and service functions; it has the operations its service has, and any other method on its paths
// answers 405 with Allow. Where a resource's wire differs (string ids, a list without paging, owners
// only, the record as the update answer), the definition says so.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, type TInteger, type TObject, type TSchema, Type } from 'typebox';
import { requireOwner } from '../http/auth.js';
import { readCacheHooks } from '../http/read-cache.js';
import { translate } from '../i18n.js';
import { Confirmation, errorAnswers } from './answers.js';
import type { PageQuery, RequestContext } from './context.js';
import { answerETag, DetailReadHeaders, entityTag, ifMatchSupport, NotModified, withETag } from './etag.js';
import { checkRawBody } from './input.js';
import { describe, nameResourceSchemas, type OperationDocs, operationNames } from './operation-docs.js';
import { type ListAnswer, listQuery, PAGING_DESCRIPTION, pageAnswer } from './paging.js';
import { IdParams, idOf, type ResourceDeps, type ResourceRoute, requestContext } from './request.js';

export type { PageQuery, RequestContext } from './context.js';

export type { OperationDocs } from './operation-docs.js';
export type { ListAnswer } from './paging.js';
export type { ResourceDeps } from './request.js';

export interface ResourceDefinition<
  Item extends TSchema,
  ListItem extends TSchema,
  Create extends TSchema,
  Update extends TSchema,
  Query extends TObject,
  IdField extends TSchema = TInteger,
> {
  /** OpenAPI tag and the noun of the summaries ("crop"). */
  tag: string;
  noun: string;
  /** PascalCase name in operationIds and schema names (Crop: listCrops, CropCreate); default from noun. */
  name?: string;
  /** The plural of name where adding s (or ies, es) is wrong. */
  pluralName?: string;
  /** Collection path, e.g. /api/crop/crop; the detail path is `${path}/:id`. */
  path: string;
  /** Also answer the detail path without the slash (`/api/crop/season7`). */
  gluedDetailPath?: boolean;
  /** Detail and create answers: an array of one (default) or `{data: record}`. */
  envelope?: 'array' | 'data';
  /**
   * The update answers the confirmation, or the record with `Prefer: return=representation`
   * (default); 'record' answers the changed record always, as the detail does.
   */
  updateAnswer?: 'confirmation' | 'record';
  /** Request field aliases of the original clients, e.g. {'parent-id': 'parent_id'}. */
  aliases?: Record<string, string>;
  /** Its list and detail answers may be kept (http/read-cache.ts): all they show is read in the request. */
  cacheReads?: boolean;
  /** Only owners create, change or delete (staff: 403, before the body is parsed). */
  ownerOnlyWrites?: boolean;
  /**
   * Only owners use any of its routes, those of `routes` too (staff: 403). Checked first at
   * preValidation: a body that cannot be parsed is a 400 before it, a bad one a 403.
   */
  ownerOnly?: boolean;
  /**
   * Check the body as sent before Ajv coerces it: null for a field that may not be null, values
   * nested too deep (default). false leaves the body to Ajv alone, as harvest batches always have.
   */
  bodyChecks?: boolean;
  /** How the detail paths document their id (default "Record id"). */
  idDescription?: string;
  description?: string;
  /** OpenAPI text of an operation, in place of the pattern's. */
  docs?: {
    list?: OperationDocs;
    get?: OperationDocs;
    create?: OperationDocs;
    update?: OperationDocs;
    remove?: OperationDocs;
  };
  schemas: {
    /** The record id of the detail paths (default a positive integer documented as idDescription). */
    id?: IdField;
    /** Detail, create and update form. */
    item: Item;
    /** List form (defaults to the detail form). */
    listItem?: ListItem;
    create?: Create;
    update?: Update;
    /** Extra query parameters of the list, next to page and pageLimit. */
    query?: Query;
  };
  /** The operations the resource has; each one left out answers 405 (when its path has others). */
  service: {
    list?(ctx: RequestContext, query: PageQuery & Static<Query>): Promise<ListAnswer>;
    /** A list without paging: no query, no paging headers, every record the service gives. */
    listAll?(ctx: RequestContext): Promise<unknown[]>;
    get?(ctx: RequestContext, id: Static<IdField>): Promise<unknown>;
    /** Holds the record's row in the caller's transaction, for If-Match (etag.ts); needed with get and a write. */
    lock?(ctx: RequestContext, id: Static<IdField>): Promise<void>;
    create?(ctx: RequestContext, input: Static<Create>): Promise<{ id: Static<IdField> }>;
    update?(ctx: RequestContext, id: Static<IdField>, input: Static<Update>): Promise<unknown>;
    /**
     * Checks of an update that wait on the network (a receiving URL's addresses), run before the
     * update and outside its transaction: under If-Match the update runs in one, which would hold
     * the database (on SQLite, every other request's write) for the lookup.
     */
    prepareUpdate?(ctx: RequestContext, id: Static<IdField>, input: Static<Update>): Promise<void>;
    remove?(ctx: RequestContext, id: Static<IdField>): Promise<void>;
  };
  /** Routes beyond the five, registered after them: action(...) and subList(...). */
  routes?: ResourceRoute[];
}

/** A Fastify plugin with the resource's routes: `app.register(resourceRoutes(def), { deps })`. */
export function resourceRoutes<
  Item extends TSchema,
  ListItem extends TSchema,
  Create extends TSchema,
  Update extends TSchema,
  Query extends TObject,
  IdField extends TSchema = TInteger,
>(def: ResourceDefinition<Item, ListItem, Create, Update, Query, IdField>) {
  nameResourceSchemas(def);
  return async (app: FastifyInstance, { deps }: { deps: ResourceDeps }) => {
    const { path, noun, tag, schemas, service, docs = {} } = def;
    const { name, plural } = operationNames(def);
    const context = (request: FastifyRequest) => requestContext(request, deps);
    // The list's and the detail's: answered from the read cache when it can, kept in it after.
    const readCaching = def.cacheReads && deps.readCache ? readCacheHooks(deps.readCache) : {};
    const detail = (record: unknown) => (def.envelope === 'data' ? { data: record } : [record]);
    const detailSchema =
      def.envelope === 'data'
        ? Type.Object({ data: schemas.item })
        : Type.Array(schemas.item, { maxItems: 1 });
    const params = schemas.id ? Type.Object({ id: schemas.id }) : IdParams(def.idDescription);
    const recordId = (request: FastifyRequest) => idOf<Static<IdField>>(request);
    // A context hook runs before the routes' own preValidation steps and the input checks.
    if (def.ownerOnly) app.addHook('preValidation', requireOwner);
    // onRequest, after the app's auth hook: staff get a 403 before their body is even validated.
    const writeGuard = def.ownerOnlyWrites ? { onRequest: requireOwner } : {};
    const ownerErrors = def.ownerOnlyWrites || def.ownerOnly;
    const writeErrors = ownerErrors ? [401, 403, 404, 422] : [401, 404, 422];
    const readErrors = (codes: number[]) => (def.ownerOnly ? [...codes, 403].sort((a, b) => a - b) : codes);
    // Text and number checks of every route (input-checks.ts) run after this step.
    const bodyChecks =
      def.bodyChecks === false
        ? {}
        : {
            preValidation: async (request: FastifyRequest) => {
              if (request.body !== undefined) {
                request.body = applyAliases(request.body, def.aliases);
                checkRawBody(request.body, request.routeOptions.schema?.body as TSchema | undefined);
              }
            },
          };

    if (service.list) {
      const list = service.list;
      app.get(
        path,
        {
          ...bodyChecks,
          ...readCaching,
          schema: {
            tags: [tag],
            operationId: `list${plural}`,
            ...describe(docs.list, {
              summary: `List ${noun} records`,
              description: `A plain JSON array, newest first. ${PAGING_DESCRIPTION}`,
            }),
            querystring: listQuery(schemas.query?.properties ?? {}),
            response: {
              200: docs.list?.answer ?? Type.Array(schemas.listItem ?? schemas.item),
              ...errorAnswers(...(docs.list?.errors ?? readErrors([401, 422]))),
            },
          },
        },
        async (request, reply) => {
          const query = request.query as PageQuery & Static<Query>;
          return pageAnswer(request, reply, query, await list(context(request), query));
        },
      );
    } else if (service.listAll) {
      const listAll = service.listAll;
      app.get(
        path,
        {
          ...bodyChecks,
          schema: {
            tags: [tag],
            operationId: `list${plural}`,
            ...describe(docs.list, { summary: `List ${noun} records`, description: 'A plain JSON array.' }),
            response: {
              200: docs.list?.answer ?? Type.Array(schemas.listItem ?? schemas.item),
              ...errorAnswers(...(docs.list?.errors ?? readErrors([401]))),
            },
          },
        },
        async (request) => listAll(context(request)),
      );
    }

    const get = service.get;
    const ifMatch = ifMatchSupport(noun, service);
    const detailPaths = [`${path}/:id`, ...(def.gluedDetailPath ? [`${path}:id(^\\d+$)`] : [])];
    for (const [index, detailPath] of detailPaths.entries()) {
      // The form without the slash (`/api/crop/season7`) is the same operation, documented as such.
      const alt = index > 0 ? ` Same as ${path}/{id}.` : def.gluedDetailPath ? ` Also at ${path}{id}.` : '';
      const operationId = (verb: string) => `${verb}${name}${index > 0 ? 'WithoutSlash' : ''}`;
      if (get) {
        app.get(
          detailPath,
          {
            ...bodyChecks,
            ...readCaching,
            schema: {
              tags: [tag],
              operationId: operationId('get'),
              ...describe(docs.get, {
                summary: `One ${noun}`,
                description: `${def.envelope === 'data' ? 'The record under `data`.' : 'An array of one record.'}${alt}`,
              }),
              params,
              headers: DetailReadHeaders,
              response: {
                200: withETag(docs.get?.answer ?? detailSchema),
                304: NotModified,
                ...errorAnswers(...(docs.get?.errors ?? readErrors([401, 404]))),
              },
            },
          },
          async (request, reply) => {
            const record = await get(context(request), recordId(request));
            return answerETag(request, reply, record) ? reply.code(304).send() : detail(record);
          },
        );
      }

      if (schemas.update && service.update) {
        const update = service.update;
        const answersRecord = def.updateAnswer === 'record';
        app.put(
          detailPath,
          {
            ...bodyChecks,
            ...writeGuard,
            schema: {
              tags: [tag],
              operationId: operationId('update'),
              ...describe(docs.update, {
                summary: `Change a ${noun}`,
                description: answersRecord
                  ? `Changes only the fields sent. Answers the changed record${def.envelope === 'data' ? ' under `data`' : ' as an array of one'}.${alt}`
                  : 'Changes only the fields sent; null clears a field that may be null. Answers ' +
                    '[{status_code: 0, message}], or with `Prefer: return=representation` the changed record ' +
                    `as an array of one.${alt}`,
              }),
              params,
              body: schemas.update,
              headers: Type.Object({
                ...(answersRecord
                  ? {}
                  : {
                      prefer: Type.Optional(
                        Type.String({ description: 'return=representation for the record' }),
                      ),
                    }),
                ...ifMatch.headers,
              }),
              response: {
                200: withETag(
                  docs.update?.answer ??
                    (answersRecord
                      ? detailSchema
                      : Type.Array(Type.Union([Confirmation, schemas.item]), { maxItems: 1 })),
                ),
                ...errorAnswers(...(docs.update?.errors ?? writeErrors), ...ifMatch.errors),
              },
            },
          },
          async (request, reply) => {
            const id = recordId(request);
            const input = request.body as Static<Update>;
            if (service.prepareUpdate) await service.prepareUpdate(context(request), id, input);
            const record = await ifMatch.write(request, context(request), id, (ctx) =>
              update(ctx, id, input),
            );
            if (get) reply.header('etag', entityTag(record));
            if (answersRecord) return detail(record);
            if (wantsRepresentation(request)) {
              reply.header('preference-applied', 'return=representation');
              return [record];
            }
            return [{ status_code: 0, message: translate('http.updated', request.language) }];
          },
        );
      }

      if (service.remove) {
        const remove = service.remove;
        app.delete(
          detailPath,
          {
            ...bodyChecks,
            ...writeGuard,
            schema: {
              tags: [tag],
              operationId: operationId('delete'),
              ...describe(docs.remove, {
                summary: `Delete a ${noun}`,
                description: `Soft delete (extension): the record leaves lists and details.${alt}`,
              }),
              params,
              headers: Type.Object(ifMatch.headers),
              response: {
                200: docs.remove?.answer ?? Type.Array(Confirmation, { maxItems: 1 }),
                ...errorAnswers(...(docs.remove?.errors ?? writeErrors), ...ifMatch.errors),
              },
            },
          },
          async (request) => {
            const id = recordId(request);
            await ifMatch.write(request, context(request), id, (ctx) => remove(ctx, id));
            return [{ status_code: 0, message: translate('http.deleted', request.language) }];
          },
        );
      }
    }

    if (schemas.create && service.create) {
      const create = service.create;
      app.post(
        path,
        {
          ...bodyChecks,
          ...writeGuard,
          schema: {
            tags: [tag],
            operationId: `create${name}`,
            ...describe(docs.create, {
              summary: `Create a ${noun}`,
              description:
                `HTTP 201 with Location; ${def.envelope === 'data' ? 'the record under `data`' : 'an array of one record'}. ` +
                'JSON or form-encoded body; a client-sent id is ignored.' +
                (def.description ? ` ${def.description}` : ''),
            }),
            body: schemas.create,
            response: {
              201: docs.create?.answer ?? detailSchema,
              ...errorAnswers(...(docs.create?.errors ?? writeErrors)),
            },
          },
        },
        async (request, reply) => {
          const record = await create(context(request), request.body as Static<Create>);
          reply.code(201).header('location', `${path}/${record.id}`);
          return detail(record);
        },
      );
    }

    for (const route of def.routes ?? []) route(app, deps);
  };
}

function wantsRepresentation(request: FastifyRequest): boolean {
  const prefer = request.headers.prefer;
  const value = Array.isArray(prefer) ? prefer.join(',') : (prefer ?? '');
  return /(^|[,;\s])return\s*=\s*"?representation"?\s*($|[,;])/i.test(value);
}

/** Copies alias fields to their canonical names, unless the canonical name was sent too. */
function applyAliases(body: unknown, aliases: Record<string, string> | undefined): unknown {
  if (!aliases || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  // Most bodies send no alias: they are kept as they are, not copied (this runs on every write).
  let sent = false;
  for (const alias in aliases) if (Object.hasOwn(body, alias)) sent = true;
  if (!sent) return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const [alias, canonical] of Object.entries(aliases)) {
    if (Object.hasOwn(copy, alias) && !Object.hasOwn(copy, canonical)) copy[canonical] = copy[alias];
    delete copy[alias];
  }
  return copy;
}
