// Users of the tenant (extension): spec 2.8 plus username and role. Never a password hash.
import { Type } from 'typebox';
import { NullableText, Text } from '../../platform/resource/fields.js';

const Role = Type.Union([Type.Literal('owner'), Type.Literal('staff')]);

export const User = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  firstname: Type.String(),
  lastname: Type.String(),
  picture: Type.Union([Type.String(), Type.Null()], { description: 'URL' }),
  username: Type.String(),
  role: Role,
});

const Fields = {
  name: Type.Optional(Text(255, 'Display name; defaults to firstname lastname')),
  firstname: Type.Optional(Text()),
  lastname: Type.Optional(Text()),
  picture: Type.Optional(NullableText(2048, 'URL')),
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
