// /api/account: the signed-in user's own account, for every role.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { authOf, requireSession } from '../../platform/http/auth.js';
import { translate } from '../../platform/i18n.js';
import { errorAnswers } from '../../platform/resource/answers.js';
import { type ResourceDeps, requestContext } from '../../platform/resource/request.js';
import { MetaOnly } from '../auth/auth.schemas.js';
import { AccountAnswer, AccountUpdate, PasswordChange } from './account.schemas.js';
import { changePassword, getAccount, updateAccount } from './account.service.js';

const tag = 'account';

export async function accountRoutes(app: FastifyInstance, { deps }: { deps: ResourceDeps }): Promise<void> {
  const context = (request: FastifyRequest) => requestContext(request, deps);

  app.get(
    '/api/account',
    {
      schema: {
        tags: [tag],
        operationId: 'getAccount',
        summary: 'The signed-in user',
        description: "Id, username, name, role, language and e-mail of the token's user, under `data`.",
        response: { 200: AccountAnswer, ...errorAnswers(401) },
      },
    },
    async (request) => ({ data: await getAccount(context(request)) }),
  );

  // A person's own account changes from their session only, never with an API key acting for them.
  app.put(
    '/api/account',
    {
      preValidation: requireSession,
      schema: {
        tags: [tag],
        operationId: 'updateAccount',
        summary: 'Change your own name, language or e-mail',
        description:
          'Changes only the fields sent; language and email null clear them. The e-mail is unique in ' +
          'the tenant (whatever its case). Answers the account under `data`.',
        body: AccountUpdate,
        response: { 200: AccountAnswer, ...errorAnswers(401, 403, 422) },
      },
    },
    async (request) => ({
      data: await updateAccount(context(request), request.body as Static<typeof AccountUpdate>),
    }),
  );

  app.post(
    '/api/account/password',
    {
      preValidation: requireSession,
      schema: {
        tags: [tag],
        operationId: 'changePassword',
        summary: 'Change your own password',
        description:
          'A wrong current_password is a 422 naming it; new_password follows the policy of every ' +
          'password (at least 8 characters). Every other session of the user ends; this token goes on.',
        body: PasswordChange,
        response: { 200: MetaOnly, ...errorAnswers(401, 403, 422) },
      },
    },
    async (request) => {
      await changePassword(
        context(request),
        authOf(request).tokenId,
        request.body as Static<typeof PasswordChange>,
      );
      return { meta: { status_code: 0, message: translate('account.password_changed', request.language) } };
    },
  );
}
