// The event catalogue on its own: every kind events.ts lists is in it, each example is a valid message
// of its kind (and a wrong one is not), descriptions come in both languages, and docs/webhook-events.md
// is what the catalogue writes. The real payloads are checked against it in
// test/webhook-event-catalogue.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Value } from 'typebox/value';
import { EVENT_DOCS_PATH } from '../../../scripts/webhook-events-doc.js';
import {
  CATALOGUE_KINDS,
  catalogueEntries,
  ENDPOINT_PAUSED_EVENT_TYPE,
  envelopeExample,
  envelopeSchema,
  eventCatalogue,
  TEST_MESSAGE,
} from './event-catalogue.js';
import { eventCatalogueMarkdown } from './event-catalogue-doc.js';
import { EVENT_TYPES } from './events.js';

describe('the event catalogue', () => {
  it('has every event kind of events.ts, and the paused endpoint event, once each', () => {
    for (const kind of EVENT_TYPES) assert.ok(CATALOGUE_KINDS.includes(kind), kind);
    assert.ok(CATALOGUE_KINDS.includes(ENDPOINT_PAUSED_EVENT_TYPE));
    assert.equal(new Set(CATALOGUE_KINDS).size, CATALOGUE_KINDS.length);
    assert.deepEqual(
      eventCatalogue('en').map((item) => item.type),
      [...CATALOGUE_KINDS],
    );
  });

  it('has examples that are valid messages of their kind, as sent and as test messages', () => {
    for (const entry of [...catalogueEntries(), TEST_MESSAGE]) {
      const schema = envelopeSchema(entry);
      const example = envelopeExample(entry);
      assert.deepEqual([...Value.Errors(schema, example)], [], entry.type);
      assert.ok(Value.Check(schema, { ...example, test: true }), entry.type);
      // Each required data field is checked: without it, or with the wrong type, it is no message.
      for (const field of entry.data.required ?? []) {
        const { [field]: _gone, ...rest } = entry.example;
        assert.equal(
          Value.Check(schema, { ...example, data: rest }),
          false,
          `${entry.type} without ${field}`,
        );
        assert.equal(
          Value.Check(schema, { ...example, data: { ...entry.example, [field]: { wrong: true } } }),
          false,
          `${entry.type} with a wrong ${field}`,
        );
      }
      assert.equal(Value.Check(schema, { ...example, type: 'other.kind' }), false);
      assert.equal(Value.Check(schema, { ...example, test: false }), false);
      assert.equal(Value.Check(schema, { ...example, occurred_at: 'yesterday' }), false);
    }
  });

  it('answers the schema and example as plain JSON, with descriptions in English and Vietnamese', () => {
    const en = eventCatalogue('en');
    const vi = eventCatalogue('vi');
    for (const [i, item] of en.entries()) {
      assert.equal(JSON.stringify(item.schema), JSON.stringify(JSON.parse(JSON.stringify(item.schema))));
      assert.equal((item.schema.properties as Record<string, { const?: string }>).type?.const, item.type);
      assert.ok(item.description.length > 20, item.type);
      assert.ok(vi[i]!.description.length > 20, item.type);
      assert.notEqual(vi[i]!.description, item.description, item.type);
      assert.deepEqual(vi[i]!.schema, item.schema);
      assert.ok(['iot', 'harvest', 'webhooks'].includes(item.group));
    }
  });

  it('is what docs/webhook-events.md says (npm run docs:events writes it)', () => {
    assert.equal(readFileSync(EVENT_DOCS_PATH, 'utf8'), eventCatalogueMarkdown());
    for (const kind of [...CATALOGUE_KINDS, TEST_MESSAGE.type]) {
      assert.ok(eventCatalogueMarkdown().includes(`## \`${kind}\``), kind);
    }
  });
});
