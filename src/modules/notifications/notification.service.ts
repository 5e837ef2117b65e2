// E-mail notification settings: who is e-mailed of alerts and offline devices, from which severity.
import type { Static } from 'typebox';
import { inTransaction } from '../../platform/db/scope.js';
import { type FieldError, validationFailed } from '../../platform/errors.js';
import type { RequestContext } from '../../platform/resource/context.js';
import {
  type EmailSettings,
  findEmailSettings,
  findLiveUsers,
  type Person,
  saveEmailSettings,
} from './notification.repository.js';
import type { NotificationSettingsAnswer, NotificationSettingsUpdate } from './notification.schemas.js';

type Answer = Static<typeof NotificationSettingsAnswer>['data'];

function present(settings: EmailSettings, people: Person[], smtpConfigured: boolean): Answer {
  const byId = new Map(people.map((p) => [p.id, p]));
  // Users deleted since they were chosen are left out: they get no mail.
  const live = settings.userIds.filter((id) => byId.has(id));
  return {
    email: {
      enabled: settings.enabled,
      min_severity: settings.minSeverity,
      user_ids: live,
      recipients: live.map((id) => {
        const person = byId.get(id)!;
        return {
          user_id: id,
          name: person.name,
          email: person.email,
          language: person.language ?? 'en',
        };
      }),
    },
    smtp_configured: smtpConfigured,
  };
}

export async function getNotificationSettings(ctx: RequestContext, smtpConfigured: boolean): Promise<Answer> {
  const settings = await findEmailSettings(ctx.scope);
  return present(settings, await findLiveUsers(ctx.scope, settings.userIds), smtpConfigured);
}

/** Changes the fields sent; user_ids must all be live users of the tenant (each bad one named). */
export async function updateNotificationSettings(
  ctx: RequestContext,
  input: Static<typeof NotificationSettingsUpdate>,
  smtpConfigured: boolean,
): Promise<Answer> {
  return inTransaction(ctx.scope, async (tx) => {
    const current = await findEmailSettings(tx);
    const { email } = input;
    const userIds = email.user_ids ? [...new Set(email.user_ids)] : current.userIds;
    const people = await findLiveUsers(tx, userIds);
    if (email.user_ids) {
      const known = new Set(people.map((p) => p.id));
      const errors: FieldError[] = [];
      email.user_ids.forEach((id, index) => {
        if (!known.has(id))
          errors.push({
            field: `email.user_ids.${index}`,
            message: 'notifications.unknown_user',
            params: { id },
          });
      });
      if (errors.length > 0) throw validationFailed(errors);
    }
    const settings: EmailSettings = {
      enabled: email.enabled ?? current.enabled,
      minSeverity: email.min_severity ?? current.minSeverity,
      userIds: userIds.filter((id) => people.some((p) => p.id === id)),
    };
    await saveEmailSettings(tx, settings, ctx.clock.now());
    return present(settings, people, smtpConfigured);
  });
}
