import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A random base62 string; 22 characters carry about 131 bits. */
export function randomBase62(length = 22): string {
  const bytes = randomBytes(length * 2);
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
