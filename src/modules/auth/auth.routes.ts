import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { toIsoUtc } from '../../platform/clock.js';
import { authOf, requireOwner, requireSession } from '../../platform/http/auth.js';
import { nameSchema } from '../../platform/http/openapi-components.js';
import { parseLanguage, translate } from '../../platform/i18n.js';
import type { AuthUser } from '../../platform/resource/context.js';
import {
  LoginAlerts,
  LoginBody,
  LoginFailure,
  LoginSuccess,
  type LoginUserShape,
  Me,
  MetaOnly,
} from './auth.schemas.js';
import { type AuthDeps, LOGIN_ALERT_AT, LOGIN_LIMITS, login, loginAlerts, logout } from './auth.service.js';

const LoginAnswer = nameSchema('LoginAnswer', Type.Union([LoginSuccess, LoginFailure]));

/** What each role may do, as the original service's clients read it (`permissions[].slug`). */
const PERMISSIONS: Record<'owner' | 'staff', string[]> = {
  owner: [
    'records.read',
    'records.write',
    'diary.write',
    'harvest.declare',
    'harvest.confirm',
    'users.manage',
    'webhooks.manage',
  ],
  staff: ['records.read', 'diary.own_tasks', 'harvest.declare'],
};
const ROLE_NAMES = { owner: 'Owner', staff: 'Staff' } as const;

function loginUser(user: AuthUser & { email: string }): Static<typeof LoginUserShape> {
  return {
    ...user,
    tel: '',
    roles: [{ slug: user.role, name: ROLE_NAMES[user.role] }],
    permissions: PERMISSIONS[user.role].map((slug) => ({ slug })),
    isAdmin: user.role === 'owner',
    sys_message: '',
  };
}

export const authRoutes: FastifyPluginAsyncTypebox<{ deps: AuthDeps }> = async (app, { deps }) => {
  app.post(
    '/api/auth/login',
    {
      // A NUL or unpaired surrogate in a name is an unknown name here ("incorrect"), not a 422.
      config: { public: true, ownTextChecks: true },
      schema: {
        tags: ['auth'],
        operationId: 'loginUser',
        summary: 'Obtain an access token',
        description:
          'Wrong credentials answer HTTP 200 with meta.status_code 1, the same for an unknown tenant, ' +
          'an unknown user and a wrong password. JSON or form-encoded bodies.',
        security: [],
        body: nameSchema('LoginRequest', LoginBody),
        response: { 200: LoginAnswer },
      },
    },
    async (request) => {
      // The login's own `language` field chooses the language of this answer too.
      const language = parseLanguage(request.body.language) ?? request.language;
      request.language = language;
      const result = await login(deps, request.body, request.ip);
      if (!result.ok) {
        return { meta: { status_code: 1 as const, message: translate('auth.bad_credentials', language) } };
      }
      return {
        meta: { status_code: 0 as const, message: translate('auth.login_ok', language) },
        data: {
          token: result.token,
          access_token: result.token,
          token_type: 'Bearer' as const,
          expires_in: result.expiresIn,
          expires_at: result.expiresAt,
          user: loginUser(result.user),
          tenant: result.tenant,
        },
      };
    },
  );

  app.post(
    '/api/auth/logout',
    {
      // An API key is revoked by an owner (DELETE /api/auth/api-keys/{id}), not logged out.
      preValidation: requireSession,
      schema: {
        tags: ['auth'],
        operationId: 'logoutUser',
        summary: 'Revoke the access token of this request',
        response: { 200: MetaOnly },
      },
    },
    async (request) => {
      await logout(deps, authOf(request));
      return { meta: { status_code: 0, message: translate('auth.logout_ok', request.language) } };
    },
  );

  app.get(
    '/api/auth/login-alerts',
    {
      onRequest: requireOwner,
      schema: {
        tags: ['auth'],
        operationId: 'listLoginAlerts',
        summary: 'Accounts of this tenant under attack (owner only)',
        description:
          `Usernames with at least ${LOGIN_ALERT_AT} failed logins in the last 24 hours, most first. ` +
          `Failures lock out one client address after ${LOGIN_LIMITS.perUserAndAddress.max} in 15 minutes, ` +
          `and every address after ${LOGIN_LIMITS.perUser.max}.`,
        response: { 200: LoginAlerts },
      },
    },
    async (request) => {
      const alerts = await loginAlerts(deps, authOf(request).tenant.code);
      return {
        data: alerts.map((a) => ({
          username: a.username,
          failed_attempts: a.failedAttempts,
          addresses: a.addresses,
          last_failed_at: toIsoUtc(a.lastFailedAt),
          locked_until: a.lockedUntil === null ? null : toIsoUtc(a.lockedUntil),
        })),
      };
    },
  );

  app.get(
    '/api/auth/me',
    {
      schema: {
        tags: ['auth'],
        operationId: 'getCurrentUser',
        summary: 'The user and tenant of this token',
        response: { 200: Me },
      },
    },
    async (request) => {
      const auth = authOf(request);
      return { data: { user: auth.user, tenant: { code: auth.tenant.code, name: auth.tenant.name } } };
    },
  );
};
