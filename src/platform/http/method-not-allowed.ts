// Fastify answers 404 for a known path with an unknown method; the API answers 405 with Allow.
// A shadow router holds every registered (method, path) so the not-found handler can tell them apart.
import type { FastifyInstance } from 'fastify';
import FindMyWay from 'find-my-way';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const shadowRouters = new WeakMap<FastifyInstance, FindMyWay.Instance<FindMyWay.HTTPVersion.V1>>();

export function trackRoutesForMethodNotAllowed(app: FastifyInstance): void {
  const router = FindMyWay({ ignoreTrailingSlash: true });
  shadowRouters.set(app, router);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if ((METHODS as readonly string[]).includes(method) && !router.hasRoute(method as 'GET', route.url)) {
        router.on(method as 'GET', route.url, () => {});
      }
    }
  });
}

export function allowedMethods(app: FastifyInstance, path: string): string[] {
  const router = shadowRouters.get(app);
  if (!router) return [];
  return METHODS.filter((method) => router.find(method, path) !== null);
}
