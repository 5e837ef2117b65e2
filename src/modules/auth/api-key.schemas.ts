// API keys (extension): `/api/auth/api-keys`, owners only, managed from a person's session.
import { Type } from 'typebox';
import { Text, TimestampInput } from '../../platform/resource/fields.js';

const Role = Type.Union([Type.Literal('owner'), Type.Literal('staff')]);
const Instant = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const ApiKey = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  role: Role,
  prefix: Type.String({ description: 'The first characters of the key, to recognise it (fk_…)' }),
  created_by: Type.Integer({ description: 'The owner who made it; the key acts as this user' }),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Instant('When it stops working; null: never'),
  last_used_at: Instant('Its last use, to the minute; null: never used'),
});

export const ApiKeyWithSecret = Type.Object({
  ...ApiKey.properties,
  key: Type.String({
    description:
      'The key itself (fk_ + 43 characters), shown in this answer only: send it as Authorization: Bearer',
  }),
});

export const ApiKeyCreate = Type.Object(
  {
    name: Text(255, 'What uses it, e.g. "Greenhouse gateway"'),
    role: Role,
    expires_at: Type.Optional(TimestampInput('When it stops working (in the future); absent or null: never')),
  },
  { additionalProperties: true },
);
