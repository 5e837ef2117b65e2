// The `webhooks` section of /openapi.json: every message Furrow sends to a receiving URL, with its
// envelope, its data and the signature headers, as OpenAPI 3.1 describes outgoing requests.
import {
  CATALOGUE_KINDS,
  type CatalogueEntry,
  catalogueEntries,
  EXAMPLE_MESSAGE_ID,
  envelopeExample,
  envelopeSchema,
  plainSchema,
  TEST_MESSAGE,
} from './event-catalogue.js';
import { TEST_EVENT_TYPE } from './events.js';

/** Every kind of message Furrow sends: the catalogue's event kinds and the test message. */
export const WEBHOOK_MESSAGE_KINDS: readonly string[] = [...CATALOGUE_KINDS, TEST_EVENT_TYPE];

const header = (name: string, description: string, example: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
  example,
});

const EXAMPLE_ID = EXAMPLE_MESSAGE_ID;
const EXAMPLE_TIMESTAMP = '1777876200';

function signatureHeaders(kind: string) {
  return [
    header('X-Service-Event', 'The event kind', kind),
    header(
      'X-Service-Delivery',
      'Delivery id (msg_…): the envelope id; receivers de-duplicate on it',
      EXAMPLE_ID,
    ),
    header(
      'X-Service-Timestamp',
      'Unix time in seconds of this attempt; reject it when more than 300 s off',
      EXAMPLE_TIMESTAMP,
    ),
    header(
      'X-Service-Signature',
      '`sha256=` + lowercase hex of HMAC-SHA256, keyed with the whole secret string (`whsec_…`), over ' +
        '`{X-Service-Timestamp}.{raw body}`; compare in constant time',
      'sha256=5f1c0e7a9b3d2f6e8a4c1b0d9e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f',
    ),
    header('webhook-id', 'Standard Webhooks: the same id as X-Service-Delivery', EXAMPLE_ID),
    header('webhook-timestamp', 'Standard Webhooks: the same time as X-Service-Timestamp', EXAMPLE_TIMESTAMP),
    header(
      'webhook-signature',
      'Standard Webhooks: `v1,` + base64 of HMAC-SHA256, keyed with the base64-decoded secret after ' +
        '`whsec_`, over `{webhook-id}.{webhook-timestamp}.{raw body}`. During a rotation overlap two ' +
        'of them, space-separated, the new secret first: accept the message when any one matches',
      'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
    ),
    {
      ...header(
        'X-Service-Signature-Previous',
        'Only during a rotation overlap: X-Service-Signature made with the previous secret, until it expires',
        'sha256=0d9e1c2b3a4f5e6d7c8b9a0f1e2d3c4b5a6f7e8d9c0b1a2f3e4d5c6b7a8f9e0d',
      ),
      required: false,
    },
  ];
}

/** The `webhooks` object of the document, one entry per message kind, from the event catalogue. */
export function webhookDocuments(): Record<string, unknown> {
  const documents: Record<string, unknown> = {};
  for (const entry of [...catalogueEntries(), TEST_MESSAGE]) documents[entry.type] = webhookDocument(entry);
  return documents;
}

function webhookDocument(entry: CatalogueEntry): Record<string, unknown> {
  const kind = entry.type;
  return {
    post: {
      operationId: `on${kind
        .split('.')
        .map((part) => part[0]?.toUpperCase() + part.slice(1))
        .join('')}`,
      tags: ['webhooks'],
      summary: entry.summary,
      description:
        `POSTed to the endpoint's URL when an endpoint subscribes to ${kind === TEST_EVENT_TYPE ? 'it (always, on request)' : `\`${kind}\` or \`*\``}. ` +
        'A 2xx answer within 10 seconds is success; anything else is retried after 1 min, 5 min, 30 min, 2 h, 6 h ' +
        'and 24 h. The same id and body are sent on every attempt; the timestamp and signatures are fresh. ' +
        'GET /api/webhooks/event-types answers the same schema and example.',
      parameters: signatureHeaders(kind),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: plainSchema(envelopeSchema(entry)),
            examples: { [kind]: { summary: entry.summary, value: envelopeExample(entry) } },
          },
        },
      },
      responses: {
        '200': { description: 'Received: any 2xx answer' },
        '400': { description: 'Refused (a bad signature, say): a failure, retried on the schedule' },
        '410': { description: 'Gone: the endpoint is paused at once; this and later messages are held' },
        '429': {
          description:
            'Too many: retried on the schedule, or later as Retry-After asks (seconds or an HTTP date; at most 24 h)',
        },
      },
      security: [],
    },
  };
}
