// Routes of a resource beyond list, detail, create, update and delete, declared as data like the
// five: an action (POST /api/harvest/batches/:id/confirm, POST /api/iot/heartbeats) and a sub-list
// (GET /api/iot/devices/:id/readings). Give them to resourceRoutes({routes}) or to routes(...).
import type { FastifyInstance } from 'fastify';
import { type Static, type TProperties, type TSchema, Type } from 'typebox';
import type { Language } from '../i18n.js';
import { errorAnswers } from './answers.js';
import type { RequestContext } from './context.js';
import { type ListAnswer, type ListQueryOf, listQuery, pageAnswer } from './paging.js';
import { IdParams, idOf, type ResourceDeps, type ResourceRoute, requestContext } from './request.js';

interface RouteDocs {
  /** OpenAPI tag. */
  tag: string;
  summary: string;
  description?: string;
  /** How a `:id` in the path is documented (default "Record id"). */
  idDescription?: string;
  /** The error answers the route documents. */
  errors: number[];
}

export interface ActionDefinition<Body extends TSchema> extends RouteDocs {
  /** The full path; a `:id` in it is the record acted on. */
  path: string;
  body?: Body;
  /** The schema of the 200 answer. */
  answer: TSchema;
  run(ctx: RequestContext, input: { id: number; body: Static<Body>; language: Language }): Promise<unknown>;
}

/** POST to a path that does one thing and answers 200 with what `run` answers. */
export function action<Body extends TSchema = TSchema>(def: ActionDefinition<Body>): ResourceRoute {
  const hasId = def.path.includes('/:id');
  return (app, deps) => {
    app.post(
      def.path,
      {
        schema: {
          tags: [def.tag],
          summary: def.summary,
          ...(def.description === undefined ? {} : { description: def.description }),
          ...(hasId ? { params: IdParams(def.idDescription) } : {}),
          ...(def.body === undefined ? {} : { body: def.body }),
          response: { 200: def.answer, ...errorAnswers(...def.errors) },
        },
      },
      async (request) =>
        def.run(requestContext(request, deps), {
          id: hasId ? idOf(request) : 0,
          body: request.body as Static<Body>,
          language: request.language,
        }),
    );
  };
}

type SubListAnswer<Query extends TProperties> =
  /** The paging headers of every list (the default). */
  | {
      pagingHeaders?: true;
      list(ctx: RequestContext, id: number, query: ListQueryOf<Query>): Promise<ListAnswer>;
    }
  /** No X-Total-Count and no Link: a list too long to count (a device's readings). */
  | {
      pagingHeaders: false;
      list(ctx: RequestContext, id: number, query: ListQueryOf<Query>): Promise<unknown[]>;
    };

export type SubListDefinition<Query extends TProperties> = RouteDocs &
  SubListAnswer<Query> & {
    /** The full path, with the `:id` of the record whose list it is. */
    path: string;
    /** The list's own query parameters, next to page and pageLimit. */
    query?: Query;
    item: TSchema;
    /** Headers of every answer, e.g. cache-control. */
    headers?: Record<string, string>;
  };

/** GET a paged list that belongs to one record; an unknown record is the service's 404. */
export function subList<Query extends TProperties>(def: SubListDefinition<Query>): ResourceRoute {
  return (app, deps) => {
    app.get(
      def.path,
      {
        schema: {
          tags: [def.tag],
          summary: def.summary,
          ...(def.description === undefined ? {} : { description: def.description }),
          params: IdParams(def.idDescription),
          querystring: listQuery(def.query ?? {}),
          response: { 200: Type.Array(def.item), ...errorAnswers(...def.errors) },
        },
      },
      async (request, reply) => {
        const query = request.query as ListQueryOf<Query>;
        const ctx = requestContext(request, deps);
        const setHeaders = () => {
          for (const [name, value] of Object.entries(def.headers ?? {})) reply.header(name, value);
        };
        if (def.pagingHeaders === false) {
          const items = await def.list(ctx, idOf(request), query);
          setHeaders();
          return items;
        }
        const page = await def.list(ctx, idOf(request), query);
        setHeaders();
        return pageAnswer(request, reply, query, page);
      },
    );
  };
}

/** Standalone routes of a module (no list or detail of their own), as one Fastify plugin. */
export function routes(...declared: ResourceRoute[]) {
  return async (app: FastifyInstance, { deps }: { deps: ResourceDeps }) => {
    for (const route of declared) route(app, deps);
  };
}
