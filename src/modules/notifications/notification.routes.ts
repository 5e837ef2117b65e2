// /api/notifications/settings: owners choose who is e-mailed of alerts and offline devices.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { requireOwner } from '../../platform/http/auth.js';
import { errorAnswers } from '../../platform/resource/answers.js';
import { type ResourceDeps, requestContext } from '../../platform/resource/request.js';
import { NotificationSettingsAnswer, NotificationSettingsUpdate } from './notification.schemas.js';
import { getNotificationSettings, updateNotificationSettings } from './notification.service.js';

const tag = 'notifications';

export async function notificationRoutes(
  app: FastifyInstance,
  { deps }: { deps: ResourceDeps & { smtpConfigured: boolean } },
): Promise<void> {
  const context = (request: FastifyRequest) => requestContext(request, deps);

  app.get(
    '/api/notifications/settings',
    {
      onRequest: requireOwner,
      schema: {
        tags: [tag],
        operationId: 'getNotificationSettings',
        summary: 'Who is e-mailed of alerts and offline devices',
        description:
          'Owners only. `email.recipients` shows each chosen user with their address (null: no mail ' +
          'until they add one) and language; `smtp_configured` tells whether this server sends e-mail.',
        response: { 200: NotificationSettingsAnswer, ...errorAnswers(401, 403) },
      },
    },
    async (request) => ({ data: await getNotificationSettings(context(request), deps.smtpConfigured) }),
  );

  app.put(
    '/api/notifications/settings',
    {
      onRequest: requireOwner,
      schema: {
        tags: [tag],
        operationId: 'updateNotificationSettings',
        summary: 'Choose who is e-mailed of alerts and offline devices',
        description:
          'Owners only. Changes the fields of `email` sent: `enabled`, `min_severity` (alerts of it or ' +
          'higher are mailed; offline devices always are) and `user_ids` (live users of the farm; a ' +
          'wrong id is a 422 naming it). Owners are also e-mailed when a webhook endpoint is paused ' +
          'automatically, whatever these settings say.',
        body: NotificationSettingsUpdate,
        response: { 200: NotificationSettingsAnswer, ...errorAnswers(401, 403, 422) },
      },
    },
    async (request) => ({
      data: await updateNotificationSettings(
        context(request),
        request.body as Static<typeof NotificationSettingsUpdate>,
        deps.smtpConfigured,
      ),
    }),
  );
}
