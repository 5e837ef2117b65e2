// The key that encrypts webhook secrets at rest: FURROW_SECRET_KEY, or a key file created on first start.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SECRET_KEY_FILE = 'secret.key';

export function loadOrCreateSecretKey(
  configured: Buffer | undefined,
  dataDir: string,
): { key: Buffer; source: 'env' | 'file' | 'created' } {
  if (configured) return { key: configured, source: 'env' };
  const path = join(dataDir, SECRET_KEY_FILE);
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
    if (key.length !== 32)
      throw new Error(`${path} does not hold a 32-byte base64 key; set FURROW_SECRET_KEY or fix the file`);
    return { key, source: 'file' };
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(path, 0o600);
  return { key, source: 'created' };
}
