// The People section's data (owners only): the farm's users, adding one, changing a role or
// password, removing one; the keys for programs (API keys), adding and revoking one. Every query
// key starts with 'people', so an action refreshes all of it.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { many, one, type paths, unwrap } from '../../api/client';
import { useSession } from '../../app/session';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type Person = Json<paths['/api/users']['get']['responses'][200]>[number];
export type Role = Person['role'];
export type NewPerson = NonNullable<
  paths['/api/users']['post']['requestBody']
>['content']['application/json'];
export type ApiKey = Json<paths['/api/auth/api-keys']['get']['responses'][200]>[number];
export type NewApiKey = NonNullable<
  paths['/api/auth/api-keys']['post']['requestBody']
>['content']['application/json'];
/** The answer to an add: the key itself is in it, and only there. */
export type MadeApiKey = ApiKey & { key: string };
export type PersonChanges = NonNullable<
  paths['/api/users/{id}']['put']['requestBody']
>['content']['application/json'];

/** Another owner may add or remove someone meanwhile. */
const POLL_MS = 30_000;

export const keys = {
  all: ['people'] as const,
  list: ['people', 'list'] as const,
  person: (id: number) => ['people', 'person', id] as const,
  apiKeys: ['people', 'api-keys'] as const,
};

export function usePeople() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.list,
    queryFn: async () =>
      many<Person>(await unwrap(api.GET('/api/users', { params: { query: { page: 0, pageLimit: 1000 } } }))),
    refetchInterval: POLL_MS,
  });
}

export function usePerson(id: number, { active = true } = {}) {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.person(id),
    queryFn: async () => one<Person>(await unwrap(api.GET('/api/users/{id}', { params: { path: { id } } }))),
    enabled: active,
  });
}

export function useAddPerson() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: NewPerson) =>
      one<Person>(await unwrap(api.POST('/api/users', { body: input }))),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.list }),
  });
}

export function useChangePerson(id: number) {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (changes: PersonChanges) =>
      one<Person>(await unwrap(api.PUT('/api/users/{id}', { params: { path: { id } }, body: changes }))),
    onSuccess: async (person) => {
      if (person?.id === id) client.setQueryData(keys.person(id), person);
      await client.invalidateQueries({ queryKey: keys.all });
    },
  });
}

export function useRemovePerson() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/users/{id}', { params: { path: { id } } })),
    // The person's page stops asking first, so nothing asks for someone removed.
    onMutate: (id: number) => client.cancelQueries({ queryKey: keys.person(id) }),
    onSuccess: (_, id) => {
      client.removeQueries({ queryKey: keys.person(id) });
      return client.invalidateQueries({ queryKey: keys.list });
    },
  });
}

/** The keys for programs, newest first; their last use shows up without a reload. */
export function useApiKeys() {
  const { api } = useSession();
  return useQuery({
    queryKey: keys.apiKeys,
    queryFn: async () =>
      many<ApiKey>(await unwrap(api.GET('/api/auth/api-keys'))).sort((a, b) => b.id - a.id),
    refetchInterval: POLL_MS,
  });
}

export function useAddApiKey() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: NewApiKey) =>
      one<MadeApiKey>(await unwrap(api.POST('/api/auth/api-keys', { body: input }))),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.apiKeys }),
  });
}

export function useRevokeApiKey() {
  const { api } = useSession();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/auth/api-keys/{id}', { params: { path: { id } } })),
    // The revoked key leaves the list at once (it is never answered again).
    onSuccess: (_, id) => {
      client.setQueryData<ApiKey[]>(keys.apiKeys, (list) => list?.filter((key) => key.id !== id));
      return client.invalidateQueries({ queryKey: keys.apiKeys });
    },
  });
}
