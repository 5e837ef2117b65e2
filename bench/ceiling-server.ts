// The ceiling: a bare Fastify server answering fixed bytes from memory. Each Furrow route is
// measured against this server answering that route's own answer bytes, in the same run.
import Fastify from 'fastify';

const payloads = new Map<string, { body: string; status: number }>();
const app = Fastify({ logger: false });
app.post('/set', async (request) => {
  const { path, body, status } = request.body as { path: string; body: string; status?: number };
  payloads.set(path, { body, status: status ?? 200 });
  return { ok: true };
});
app.all('/c/*', async (request, reply) => {
  const payload = payloads.get(request.url.split('?')[0]!.slice(2)) ?? { body: '{}', status: 200 };
  reply.code(payload.status).type('application/json; charset=utf-8');
  return payload.body;
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
