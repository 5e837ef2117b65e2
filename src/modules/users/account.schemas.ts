// The signed-in user's own account (extension): what the farm app's Account page reads and changes.
import { Type } from 'typebox';
import { Name } from '../../platform/resource/fields.js';
import { UserEmail, UserLanguage } from './user.schemas.js';

export const Account = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  name: Type.String(),
  role: Type.Union([Type.Literal('owner'), Type.Literal('staff')]),
  language: UserLanguage,
  email: Type.Union([Type.String(), Type.Null()]),
});

export const AccountAnswer = Type.Object({ data: Account });

export const AccountUpdate = Type.Object(
  {
    name: Type.Optional(Name('Display name')),
    language: Type.Optional(UserLanguage),
    email: Type.Optional(UserEmail),
  },
  { additionalProperties: true },
);

export const PasswordChange = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: 1000 }),
    new_password: Type.String({ minLength: 1, maxLength: 1000, description: 'At least 8 characters' }),
  },
  { additionalProperties: true },
);
