import { createHash, randomBytes, randomFillSync } from 'node:crypto';

/**
 * Random bytes from a pool filled by the system's CSPRNG 4 KB at a time, each byte given out once:
 * a call to randomBytes costs a system call or more (OpenSSL checks the process id each time),
 * which the claim tokens, message ids and IVs made per request and per delivery paid each time.
 * Node keeps such a pool for randomUUID too.
 */
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolAt = POOL_SIZE;

export function pooledRandomBytes(length: number): Buffer {
  if (length > POOL_SIZE) return randomBytes(length);
  if (poolAt + length > POOL_SIZE) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolAt, poolAt + length));
  // Given out once: the bytes are overwritten so nothing later can read them from the pool.
  pool.fill(0, poolAt, poolAt + length);
  poolAt += length;
  return bytes;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random base62 string; 22 characters carry about 131 bits. */
export function randomBase62(length = 22): string {
  const bytes = pooledRandomBytes(length * 2);
  let out = '';
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    const byte = bytes[i]!;
    if (byte < 248) out += ALPHABET[byte % 62]; // 248 = 4 × 62: no modulo bias
  }
  return out.length === length ? out : out + randomBase62(length - out.length);
}

/** Prefixed public ids in the Svix style: msg_…, ep_…. */
export function prefixedId(prefix: string): string {
  return `${prefix}_${randomBase62()}`;
}

/** An opaque bearer token: 32 random bytes, base64url. */
export function newAccessToken(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
