// From a request to what a service receives: the deps every resource route gets, the RequestContext
// of a request, and the record id of a path.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Clock } from '../clock.js';
import type { Db } from '../db/types.js';
import { authOf, scopeOf } from '../http/auth.js';
import type { RequestContext } from './context.js';
import { Id } from './fields.js';

export interface ResourceDeps {
  db: Db;
  clock: Clock;
}

/** One route (or a few) of a resource, registered with the resource's deps: see actions.ts. */
export type ResourceRoute = (app: FastifyInstance, deps: ResourceDeps) => void;

export function requestContext(request: FastifyRequest, deps: ResourceDeps): RequestContext {
  return { scope: scopeOf(request, deps.db), clock: deps.clock, user: authOf(request).user };
}

/** The params of a path with a record id, documented as `description`. */
export const IdParams = (description = 'Record id') => Type.Object({ id: Id(description) });

export function idOf(request: FastifyRequest): number {
  return (request.params as Static<ReturnType<typeof IdParams>>).id;
}
