// From a request to what a service receives: the deps every resource route gets, the RequestContext
// of a request, and the record id of a path.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, type TObject, Type } from 'typebox';
import type { Clock } from '../clock.js';
import type { Db } from '../db/types.js';
import { authOf, scopeOf } from '../http/auth.js';
import type { ReadCache } from '../http/read-cache.js';
import type { RequestContext } from './context.js';
import { Id } from './fields.js';

export interface ResourceDeps {
  db: Db;
  clock: Clock;
  /** Keeps list and detail answers of the resources that allow it (SQLite only). */
  readCache?: ReadCache | undefined;
}

/** One route (or a few) of a resource, registered with the resource's deps: see actions.ts. */
export type ResourceRoute = (app: FastifyInstance, deps: ResourceDeps) => void;

export function requestContext(request: FastifyRequest, deps: ResourceDeps): RequestContext {
  const ctx: RequestContext = {
    scope: scopeOf(request, deps.db),
    clock: deps.clock,
    user: authOf(request).user,
  };
  const cache = deps.readCache;
  if (cache !== undefined) ctx.changesAt = (at) => cache.changesAt(request, at);
  return ctx;
}

/** The params of a path with a record id, documented as `description`. */
export const IdParams = (description = 'Record id') => Type.Object({ id: Id(description) });

/** The `:id` of a request's path as its params schema validated it: a number unless the schema says otherwise. */
export function idOf<Id = number>(request: FastifyRequest): Id {
  return (request.params as { id: Id }).id;
}

/** The `:id` a params schema gives: a number for IdParams, a string for `{id: Type.String()}`. */
export type IdOf<Params extends TObject> = Static<Params> extends { id: infer Id } ? Id : number;
