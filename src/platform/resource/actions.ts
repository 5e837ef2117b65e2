// Routes of a resource beyond list, detail, create, update and delete, declared as data like the
// five: an action (POST /api/harvest/batches/:id/confirm, POST /api/iot/heartbeats), a sub-list
// (GET /api/iot/devices/:id/readings) and a report (GET /api/harvest/totals). Give them to
// resourceRoutes({routes}) or to routes(...).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, type TObject, type TProperties, type TSchema, Type } from 'typebox';
import { authOf, requireOwner } from '../http/auth.js';
import { OPTIONAL_BODY } from '../http/openapi.js';
import type { Language } from '../i18n.js';
import { errorAnswers } from './answers.js';
import type { RequestContext } from './context.js';
import { type ListAnswer, type ListQueryOf, listQuery, pageAnswer } from './paging.js';
import {
  type IdOf,
  IdParams,
  idOf,
  type ResourceDeps,
  type ResourceRoute,
  requestContext,
} from './request.js';

type DefaultParams = ReturnType<typeof IdParams>;

interface RouteDocs<Params extends TObject> {
  /** OpenAPI tag. */
  tag: string;
  /** Stable, unique camelCase name of the operation in the OpenAPI document (acknowledgeAlert). */
  operationId: string;
  summary: string;
  description?: string;
  /** How a `:id` in the path is documented (default "Record id"). */
  idDescription?: string;
  /** The path's params, in place of a numeric `:id` (string ids, a second id in the path). */
  params?: Params;
  /** The error answers the route documents. */
  errors: number[];
}

export interface ActionDefinition<Body extends TSchema, Params extends TObject> extends RouteDocs<Params> {
  /** The full path; a `:id` in it is the record acted on. */
  path: string;
  body?: Body;
  /** The schema of the answer. */
  answer: TSchema;
  /** The status of the answer (default 200), e.g. 202 for work queued. */
  status?: number;
  /** Only owners may do it (staff: 403, before the body is parsed); 403 is documented with it. */
  ownerOnly?: boolean;
  run(
    ctx: RequestContext,
    input: {
      id: IdOf<Params>;
      params: Static<Params>;
      body: Static<Body>;
      language: Language;
      /** The code of the tenant acting (the workspace id of webhook envelopes). */
      tenantCode: string;
    },
  ): Promise<unknown>;
}

/** POST to a path that does one thing and answers 200 (or `status`) with what `run` answers. */
export function action<Body extends TSchema = TSchema, Params extends TObject = DefaultParams>(
  def: ActionDefinition<Body, Params>,
): ResourceRoute {
  const hasId = def.path.includes('/:id');
  const params = def.params ?? (hasId ? IdParams(def.idDescription) : undefined);
  const errors = def.ownerOnly ? [...new Set([...def.errors, 403])].sort((a, b) => a - b) : def.errors;
  return (app, deps) => {
    app.post(
      def.path,
      {
        // onRequest, after the app's auth hook, as resourceRoutes' ownerOnlyWrites.
        ...(def.ownerOnly ? { onRequest: requireOwner } : {}),
        ...(def.body !== undefined && bodyIsOptional(def.body) ? { preValidation: emptyBodyAsObject } : {}),
        schema: {
          tags: [def.tag],
          operationId: def.operationId,
          summary: def.summary,
          ...(def.description === undefined ? {} : { description: def.description }),
          ...(params === undefined ? {} : { params }),
          ...(def.body === undefined ? {} : { body: def.body }),
          // The document marks the body optional (openapi.ts); swagger copies x- keys to the operation.
          ...(def.body !== undefined && bodyIsOptional(def.body) ? { [OPTIONAL_BODY]: true } : {}),
          response: { [def.status ?? 200]: def.answer, ...errorAnswers(...errors) },
        },
      },
      async (request, reply) => {
        const answer = await def.run(requestContext(request, deps), {
          id: hasId ? idOf<IdOf<Params>>(request) : (0 as IdOf<Params>),
          params: request.params as Static<Params>,
          body: request.body as Static<Body>,
          language: request.language,
          tenantCode: authOf(request).tenant.code,
        });
        if (def.status !== undefined) reply.code(def.status);
        return answer;
      },
    );
  };
}

/** A body schema of an object with nothing required: sending no body at all means `{}`. */
function bodyIsOptional(schema: TSchema): boolean {
  const required = (schema as { required?: unknown[] }).required;
  return (
    (schema as { type?: unknown }).type === 'object' && (required === undefined || required.length === 0)
  );
}

async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

type SubListAnswer<Query extends TProperties, Id> =
  /** The paging headers of every list (the default). */
  | {
      paging?: true;
      pagingHeaders?: true;
      list(ctx: RequestContext, id: Id, query: ListQueryOf<Query>): Promise<ListAnswer>;
    }
  /** No X-Total-Count and no Link: a list too long to count (a device's readings). */
  | {
      paging?: true;
      pagingHeaders: false;
      list(ctx: RequestContext, id: Id, query: ListQueryOf<Query>): Promise<unknown[]>;
    }
  /**
   * No paging at all: no paging headers, the list the service gives (an endpoint's last
   * deliveries, a device's readings series), with the list's own query if it has one.
   */
  | {
      paging: false;
      list(ctx: RequestContext, id: Id, query: Static<TObject<Query>>): Promise<unknown[]>;
    };

export type SubListDefinition<Query extends TProperties, Params extends TObject> = RouteDocs<Params> &
  SubListAnswer<Query, IdOf<Params>> & {
    /** The full path, with the `:id` of the record whose list it is. */
    path: string;
    /** The list's own query parameters, next to page and pageLimit when it pages. */
    query?: Query;
    item: TSchema;
    /** Headers of every answer, e.g. cache-control. */
    headers?: Record<string, string>;
  };

/** GET a list that belongs to one record, paged unless told; an unknown record is the service's 404. */
export function subList<Query extends TProperties, Params extends TObject = DefaultParams>(
  def: SubListDefinition<Query, Params>,
): ResourceRoute {
  return (app, deps) => {
    app.get(
      def.path,
      {
        schema: {
          tags: [def.tag],
          operationId: def.operationId,
          summary: def.summary,
          ...(def.description === undefined ? {} : { description: def.description }),
          params: def.params ?? IdParams(def.idDescription),
          ...(def.paging === false
            ? def.query === undefined
              ? {}
              : { querystring: Type.Object(def.query, { additionalProperties: true }) }
            : { querystring: listQuery(def.query ?? {}) }),
          response: { 200: Type.Array(def.item), ...errorAnswers(...def.errors) },
        },
      },
      async (request, reply) => {
        const query = request.query as ListQueryOf<Query>;
        const ctx = requestContext(request, deps);
        const id = idOf<IdOf<Params>>(request);
        const setHeaders = () => {
          for (const [name, value] of Object.entries(def.headers ?? {})) reply.header(name, value);
        };
        if (def.paging === false) {
          const items = await def.list(ctx, id, request.query as Static<TObject<Query>>);
          setHeaders();
          return items;
        }
        if (def.pagingHeaders === false) {
          const items = await def.list(ctx, id, query);
          setHeaders();
          return items;
        }
        const page = await def.list(ctx, id, query);
        setHeaders();
        return pageAnswer(request, reply, query, page);
      },
    );
  };
}

export interface ReportDefinition<Query extends TProperties>
  extends Omit<RouteDocs<TObject>, 'params' | 'idDescription'> {
  /** The full path, without a record id. */
  path: string;
  /** The report's query parameters; others are let through, as on lists. */
  query: Query;
  /** The schema of the answer. */
  answer: TSchema;
  run(ctx: RequestContext, query: Static<TObject<Query>>): Promise<unknown>;
}

/** GET an answer computed over many records (totals): its own query, no paging, no record id. */
export function report<Query extends TProperties>(def: ReportDefinition<Query>): ResourceRoute {
  return (app, deps) => {
    app.get(
      def.path,
      {
        schema: {
          tags: [def.tag],
          operationId: def.operationId,
          summary: def.summary,
          ...(def.description === undefined ? {} : { description: def.description }),
          querystring: Type.Object(def.query, { additionalProperties: true }),
          response: { 200: def.answer, ...errorAnswers(...def.errors) },
        },
      },
      async (request) => def.run(requestContext(request, deps), request.query as Static<TObject<Query>>),
    );
  };
}

/** Standalone routes of a module (no list or detail of their own), as one Fastify plugin. */
export function routes(...declared: ResourceRoute[]) {
  return async (app: FastifyInstance, { deps }: { deps: ResourceDeps }) => {
    for (const route of declared) route(app, deps);
  };
}
