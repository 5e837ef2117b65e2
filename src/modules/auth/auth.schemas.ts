import { Type } from 'typebox';

export const LoginBody = Type.Object(
  {
    tenantcode: Type.String({ minLength: 1, maxLength: 63, description: 'Tenant code, e.g. "demo"' }),
    username: Type.String({ minLength: 1, maxLength: 100 }),
    password: Type.String({ minLength: 1, maxLength: 1000 }),
    language: Type.Optional(
      Type.String({ maxLength: 16, description: '"vi" for Vietnamese messages; default English' }),
    ),
  },
  { additionalProperties: true },
);

export const UserShape = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  name: Type.String(),
  firstname: Type.String(),
  lastname: Type.String(),
  picture: Type.Union([Type.String(), Type.Null()]),
  role: Type.Union([Type.Literal('owner'), Type.Literal('staff')]),
});

/**
 * The login answer's user: the user, and the fields the original service's mobile clients read
 * from it, empty or derived where Furrow keeps no such data.
 */
export const LoginUserShape = Type.Object({
  ...UserShape.properties,
  email: Type.String({ description: 'The e-mail address; "" when none' }),
  tel: Type.String({ description: 'Always "": Furrow keeps no phone numbers (for older clients)' }),
  roles: Type.Array(Type.Object({ slug: Type.String(), name: Type.String() }), {
    description: 'The role as a list of one (for older clients)',
  }),
  permissions: Type.Array(Type.Object({ slug: Type.String() }), {
    description: 'What the role may do, derived from it (for older clients)',
  }),
  isAdmin: Type.Boolean({ description: 'true for owners (for older clients)' }),
  sys_message: Type.String({ description: 'Always "" (for older clients)' }),
});

export const TenantShape = Type.Object({ code: Type.String(), name: Type.String() });

export const LoginSuccess = Type.Object({
  meta: Type.Object({ status_code: Type.Literal(0), message: Type.String() }),
  data: Type.Object({
    token: Type.String(),
    access_token: Type.String({ description: 'Same value as token' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the token expires' }),
    expires_at: Type.String({ description: 'ISO 8601 UTC' }),
    user: LoginUserShape,
    tenant: TenantShape,
  }),
});

export const LoginFailure = Type.Object({
  meta: Type.Object({ status_code: Type.Literal(1), message: Type.String() }),
});

export const MetaOnly = Type.Object({
  meta: Type.Object({ status_code: Type.Integer(), message: Type.String() }),
});

export const Me = Type.Object({ data: Type.Object({ user: UserShape, tenant: TenantShape }) });

export const LoginAlerts = Type.Object({
  data: Type.Array(
    Type.Object({
      username: Type.String({ description: 'The username tried (it may not exist)' }),
      failed_attempts: Type.Integer({ description: 'Failed logins in the last 24 hours' }),
      addresses: Type.Integer({ description: 'Client addresses they came from' }),
      last_failed_at: Type.String({ description: 'ISO 8601 UTC' }),
      locked_until: Type.Union([Type.String(), Type.Null()], {
        description: 'Until when logins from every address are refused (ISO 8601 UTC), or null',
      }),
    }),
  ),
});
