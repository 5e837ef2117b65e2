type Op<Q, P, B, R> = {
  parameters: { query?: Q; header?: never; cookie?: never } & ([P] extends [never]
    ? { path?: never }
    : { path: P });
  responses: { 200: { headers: Record<string, unknown>; content: { 'application/json': R } } } & {
    201: { headers: Record<string, unknown>; content: { 'application/json': R } };
  };
} & ([B] extends [never] ? { requestBody?: never } : { requestBody: { content: { 'application/json': B } } });
type Item<M> = {
  parameters: { query?: never; header?: never; path?: never; cookie?: never };
} & M;

export interface PendingMqttSource {
  id: number;
  name: string;
  url: string;
  username: string | null;
  has_password: boolean;
  topics: string[];
  format: 'chirpstack' | 'tts' | 'furrow';
  enabled: boolean;
  connected: boolean;
  last_message_at: string | null;
  last_error: string | null;
}
export interface PendingMqttInput {
  name: string;
  url: string;
  username?: string | null;
  password?: string | null;
  topics: string[];
  format: 'chirpstack' | 'tts' | 'furrow';
  enabled?: boolean;
}

declare module '../../api/schema' {
  interface paths {
    '/api/iot/mqtt-sources': Item<{
      get: Op<{ page?: number; pageLimit?: number }, never, never, PendingMqttSource[]>;
      post: Op<never, never, PendingMqttInput, PendingMqttSource[]>;
    }>;
    '/api/iot/mqtt-sources/{id}': Item<{
      get: Op<never, { id: number }, never, PendingMqttSource[]>;
      put: Op<never, { id: number }, Partial<PendingMqttInput>, unknown>;
      delete: Op<never, { id: number }, never, unknown>;
    }>;
  }
}
