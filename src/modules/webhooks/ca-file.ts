// WEBHOOK_CA_FILE, read where a sender is made: a file that cannot be read stops the worker at its
// start with a message that says why.
import { readFileSync } from 'node:fs';

/** WEBHOOK_CA_FILE's certificates, or an error that says why they cannot be read. */
export function readCaFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `WEBHOOK_CA_FILE: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
}
