// Writes docs/webhook-events.md from the event catalogue (src/modules/webhooks/event-catalogue.ts).
// src/modules/webhooks/event-catalogue.test.ts fails when the file differs from what this writes.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { eventCatalogueMarkdown } from '../src/modules/webhooks/event-catalogue-doc.js';

export const EVENT_DOCS_PATH = fileURLToPath(new URL('../docs/webhook-events.md', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(EVENT_DOCS_PATH, eventCatalogueMarkdown());
  process.stdout.write(`wrote ${EVENT_DOCS_PATH}\n`);
}
