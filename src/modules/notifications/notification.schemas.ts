// E-mail notification settings (extension): `/api/notifications/settings`, owners only.
import { Type } from 'typebox';

const MinSeverity = Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')], {
  description: 'Alerts of this severity or higher are e-mailed (default critical)',
});

export const EmailSettings = Type.Object({
  enabled: Type.Boolean({ description: 'Whether the recipients are e-mailed at all (default false)' }),
  min_severity: MinSeverity,
  user_ids: Type.Array(Type.Integer(), { description: 'The users e-mailed of alerts and offline devices' }),
  recipients: Type.Array(
    Type.Object({
      user_id: Type.Integer(),
      name: Type.String(),
      email: Type.Union([Type.String(), Type.Null()], {
        description: 'null: the user has no e-mail address yet, so gets no mail',
      }),
      language: Type.Union([Type.Literal('en'), Type.Literal('vi')], {
        description: "The language of the user's mail (English unless the user chose Vietnamese)",
      }),
    }),
    { description: 'The chosen users as they are now, in user_ids order' },
  ),
});

export const NotificationSettingsAnswer = Type.Object({
  data: Type.Object({
    email: EmailSettings,
    smtp_configured: Type.Boolean({
      description:
        'Whether this server can send e-mail (SMTP_URL is set); without it no mail is written or sent',
    }),
  }),
});

export const NotificationSettingsUpdate = Type.Object(
  {
    email: Type.Object(
      {
        enabled: Type.Optional(Type.Boolean()),
        min_severity: Type.Optional(MinSeverity),
        user_ids: Type.Optional(
          Type.Array(Type.Integer({ minimum: 1 }), {
            maxItems: 100,
            description: "Live users of the farm; an unknown or deleted user's id is a 422 naming it",
          }),
        ),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);
