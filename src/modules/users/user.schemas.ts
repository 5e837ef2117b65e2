// Users of the tenant (extension): spec 2.8 plus username and role. Never a password hash.
import { Type } from 'typebox';
import { NullableText, Text } from '../../platform/resource/fields.js';

const Role = Type.Union([Type.Literal('owner'), Type.Literal('staff')]);

/** A user's language: null follows the app's default (English, or what the browser asks for). */
export const UserLanguage = Type.Union([Type.Literal('en'), Type.Literal('vi'), Type.Null()], {
  description: "'en' or 'vi'; null: the app's default",
});
/** An e-mail address (spaces around it are dropped), or empty or null for none. */
export const UserEmail = Type.Union(
  [Type.String({ maxLength: 254, pattern: '^\\s*([^\\s@]+@[^\\s@.]+(\\.[^\\s@.]+)+)?\\s*$' }), Type.Null()],
  { description: 'E-mail address, unique in the tenant (whatever its case); empty or null: none' },
);

export const User = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  firstname: Type.String(),
  lastname: Type.String(),
  picture: Type.Union([Type.String(), Type.Null()], { description: 'URL' }),
  username: Type.String(),
  role: Role,
  language: UserLanguage,
  email: Type.Optional(
    Type.Union([Type.String(), Type.Null()], { description: "In owners' answers only; null: none" }),
  ),
});

const Fields = {
  name: Type.Optional(Text(255, 'Display name; defaults to firstname lastname')),
  firstname: Type.Optional(Text()),
  lastname: Type.Optional(Text()),
  picture: Type.Optional(NullableText(2048, 'URL')),
  language: Type.Optional(UserLanguage),
  email: Type.Optional(UserEmail),
};

export const UserCreate = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 100, description: 'Case-insensitive; a-z 0-9 . _ @ -' }),
    password: Type.String({ minLength: 1, maxLength: 1000, description: 'At least 8 characters' }),
    role: Type.Optional(Type.Union([Type.Literal('owner'), Type.Literal('staff')], { default: 'staff' })),
    ...Fields,
  },
  { additionalProperties: true },
);

export const UserUpdate = Type.Object(
  {
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'A new password' })),
    role: Type.Optional(Role),
    ...Fields,
  },
  { additionalProperties: true },
);
