// The Account page's data: the signed-in person's own account (GET/PUT /api/account) and the
// password change. Every key starts with 'account'.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { one, type paths, unwrap } from '../../api/client';
import { useSession } from '../../app/session';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type Account = Json<paths['/api/account']['get']['responses'][200]>['data'];
export type AccountChanges = NonNullable<
  paths['/api/account']['put']['requestBody']
>['content']['application/json'];
export type PasswordChange = NonNullable<
  paths['/api/account/password']['post']['requestBody']
>['content']['application/json'];

export const keys = {
  all: ['account'] as const,
  me: ['account', 'me'] as const,
};

export function useAccount() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.me,
    queryFn: async () => one<Account>(await unwrap(api.GET('/api/account'))),
  });
}

export function useSaveAccount() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (changes: AccountChanges) =>
      one<Account>(await unwrap(api.PUT('/api/account', { body: changes }))),
    onSuccess: (account) => client.setQueryData(keys.me, account),
  });
}

export function useChangePassword() {
  const { api } = useSession();
  return useMutation({
    mutationFn: (change: PasswordChange) => unwrap(api.POST('/api/account/password', { body: change })),
  });
}
