// The ceiling: a bare Fastify server answering fixed bytes from memory. Each Furrow route is
// measured against this server answering that route's own answer (status, headers and body) for the
// same method and URL, in the same run.
import Fastify from 'fastify';

interface Answer {
  body: string;
  status: number;
  headers: Record<string, string>;
}

const answers = new Map<string, Answer>();
const app = Fastify({ logger: false });
app.post('/set', async (request) => {
  const { method, path, ...answer } = request.body as { method: string; path: string } & Answer;
  answers.set(`${method} ${path}`, answer);
  return { ok: true };
});
app.all('/c/*', async (request, reply) => {
  const key = `${request.method} ${request.url.slice(2)}`;
  const answer = answers.get(key);
  if (!answer) return reply.code(404).send({ error: `nothing set for ${key}` });
  reply.code(answer.status).headers(answer.headers);
  return answer.body;
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
