/**
 * The two webhook signature schemes: Standard Webhooks for what we send, the code host's
 * `X-Hub-Signature-256` for what it sends us. Comparisons run in constant time.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A fresh Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

function secretBytes(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The Standard Webhooks headers for `body`: `v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`. */
export function standardWebhookHeaders(secret: string, id: string, at: Date, body: string): SignedHeaders {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signature = createHmac('sha256', secretBytes(secret))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}

function equalInConstantTime(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether `X-Hub-Signature-256` is `sha256=` and the hex HMAC-SHA256 of the raw body under `secret`. */
export function codehostSignatureValid(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (header === undefined || !header.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return equalInConstantTime(given, expected);
}
