// Webhook secrets and signatures. A secret is `whsec_` + base64 of 32 random bytes, kept
// encrypted at rest (AES-256-GCM under FURROW_SECRET_KEY). Every attempt is signed afresh with
// two header sets: Furrow's X-Service-* and the Standard Webhooks ones. During a rotation's overlap
// the previous secret signs too: a second `v1,` signature and X-Service-Signature-Previous.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export interface SignedHeaders {
  'X-Service-Event': string;
  'X-Service-Delivery': string;
  'X-Service-Timestamp': string;
  'X-Service-Signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
  /** Only while a rotated-out secret still signs. */
  'X-Service-Signature-Previous'?: string;
}

/** X-Service-Signature: HMAC-SHA256 keyed with the whole secret string over `timestamp.body`. */
export function serviceSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** webhook-signature: HMAC-SHA256 keyed with the decoded secret over `id.timestamp.body`. */
export function standardSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The signed headers of one attempt. With `previousSecret` (a rotation's overlap) `webhook-signature`
 * carries both signatures, the new one first, space-separated as Standard Webhooks lists them, and
 * X-Service-Signature-Previous is the X-Service-Signature the previous secret makes.
 */
export function signPayload(
  secret: string,
  message: { id: string; eventType: string; body: string },
  timestampSeconds: number,
  previousSecret?: string | null,
): SignedHeaders {
  const timestamp = String(timestampSeconds);
  const { id, body } = message;
  const headers: SignedHeaders = {
    'X-Service-Event': message.eventType,
    'X-Service-Delivery': id,
    'X-Service-Timestamp': timestamp,
    'X-Service-Signature': serviceSignature(secret, timestamp, body),
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': standardSignature(secret, id, timestamp, body),
  };
  if (previousSecret) {
    headers['webhook-signature'] += ` ${standardSignature(previousSecret, id, timestamp, body)}`;
    headers['X-Service-Signature-Previous'] = serviceSignature(previousSecret, timestamp, body);
  }
  return headers;
}

const CIPHER_VERSION = 'v1';

/** AES-256-GCM; the endpoint id is bound as associated data, so a ciphertext cannot be moved. */
export function encryptSecret(key: Buffer, secret: string, endpointId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(endpointId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `${CIPHER_VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}

export function decryptSecret(key: Buffer, stored: string, endpointId: string): string {
  const [version, payload] = stored.split(':');
  if (version !== CIPHER_VERSION || !payload) throw new Error('unknown webhook secret format');
  const raw = Buffer.from(payload, 'base64');
  // iv (12) + a full 16-byte tag + at least one byte: a short tag would weaken authentication.
  if (raw.length < 12 + 16 + 1) throw new Error('webhook secret ciphertext is too short');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12), { authTagLength: 16 });
  decipher.setAAD(Buffer.from(endpointId, 'utf8'));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/**
 * Endpoint secrets decrypted, by endpoint and stored ciphertext (a rotation stores a new one): a
 * worker decrypts an endpoint's secret once, not once per delivery. Bounded: past `kept`, secrets of
 * endpoints long gone or rotated out are dropped with the rest.
 */
export class DecryptedSecrets {
  private readonly secrets = new Map<string, string>();

  constructor(
    private readonly key: Buffer,
    private readonly kept = 1_000,
  ) {}

  /** An endpoint's secret from its stored form (throws when the key cannot decrypt it). */
  of(stored: string, endpointId: string): string {
    const cacheKey = `${endpointId} ${stored}`;
    let secret = this.secrets.get(cacheKey);
    if (secret === undefined) {
      secret = decryptSecret(this.key, stored, endpointId);
      if (this.secrets.size >= this.kept) this.secrets.clear();
      this.secrets.set(cacheKey, secret);
    }
    return secret;
  }
}
