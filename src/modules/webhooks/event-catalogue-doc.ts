// docs/webhook-events.md, written from the event catalogue: `npm run docs:events` writes it and
// event-catalogue.test.ts fails when the file differs, so the page and the catalogue cannot drift.
import { translate } from '../../platform/i18n.js';
import {
  type CatalogueEntry,
  catalogueEntries,
  envelopeExample,
  plainSchema,
  TEST_MESSAGE,
} from './event-catalogue.js';

type Json = Record<string, unknown>;

/** A schema's type in a word or two: `integer`, `string (date-time) or null`, `array of integer`. */
function typeOf(schema: Json): string {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).map(typeOf).join(' or ');
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.type === 'array') return `array of ${typeOf((schema.items ?? {}) as Json)}`;
  const format = typeof schema.format === 'string' ? ` (${schema.format})` : '';
  return `${String(schema.type)}${format}`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function section(entry: CatalogueEntry): string {
  const data = plainSchema(entry.data);
  const required = new Set((data.required as string[] | undefined) ?? []);
  const rows = Object.entries(data.properties as Record<string, Json>).map(([name, field]) => {
    const description = String(field.description ?? '');
    const values = Array.isArray(field.anyOf)
      ? (field.anyOf as Json[]).filter((s) => s.const !== undefined).map((s) => `\`${String(s.const)}\``)
      : [];
    const type = values.length > 0 ? `one of ${values.join(', ')}` : typeOf(field);
    return `| \`${name}\` | ${cell(type)} | ${required.has(name) ? 'yes' : 'no'} | ${cell(description)} |`;
  });
  return [
    `## \`${entry.type}\``,
    '',
    `${translate(entry.descriptionKey, 'en')} Group: \`${entry.group}\`.`,
    '',
    '| data field | type | always present | meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
    'Example message:',
    '',
    '```json',
    JSON.stringify(envelopeExample(entry), null, 2),
    '```',
    '',
  ].join('\n');
}

/** The whole page. */
export function eventCatalogueMarkdown(): string {
  return [
    '# Webhook events',
    '',
    '<!-- Written by `npm run docs:events` from src/modules/webhooks/event-catalogue.ts; do not edit by hand. -->',
    '',
    'Every message Furrow POSTs to a webhook endpoint is a JSON envelope:',
    '',
    '| field | meaning |',
    '|---|---|',
    '| `id` | the message id (`msg_…`), also in `X-Service-Delivery` and `webhook-id`: de-duplicate on it |',
    '| `type` | the event kind (below), also in `X-Service-Event` |',
    '| `test` | `true` only on a test message of an event kind (`POST /api/webhooks/{id}/test` with `event_type`); absent otherwise |',
    '| `workspace_id` | the code of the tenant |',
    '| `occurred_at` | when it happened, ISO 8601 UTC |',
    '| `data` | the event’s fields, by kind (below) |',
    '',
    'The same catalogue is served at `GET /api/webhooks/event-types` (owners; descriptions in the',
    "request's language) with a JSON Schema of each whole message, and is the `webhooks` section of",
    '`/openapi.json`. New fields may be added to `data`; receivers should ignore fields they do not know.',
    'The signature headers are described in the README ("Webhooks").',
    '',
    ...[...catalogueEntries(), TEST_MESSAGE].map(section),
  ].join('\n');
}
