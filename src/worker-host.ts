// The host of `furrow serve --role worker`: a Fastify instance with no routes, for its logger and its
// start and close. The worker answers no request, so it loads none of the routes, their schemas and
// the API document that buildApp (app.ts) makes.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';
import { setMailWriting } from './modules/notifications/mail-switch.js';

export function buildWorkerHost(deps: {
  config: Config;
  logger?: FastifyServerOptions['logger'];
}): FastifyInstance {
  // As buildApp does in the other roles: the worker's events write mail when SMTP_URL is set.
  setMailWriting(deps.config.smtpUrl !== undefined);
  return Fastify({ logger: deps.logger ?? false });
}
