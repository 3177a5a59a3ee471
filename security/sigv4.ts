/**
 * AWS Signature Version 4 over node:crypto (header-based, service `s3`), for whatever speaks to an
 * S3-compatible server: the local runtime's backup bucket and Connect's S3 sink. No SDK is needed
 * for a few calls. A signature or a secret key never appears in an error or a log line.
 */
import { createHash, createHmac } from 'node:crypto';

const ALGORITHM = 'AWS4-HMAC-SHA256';
const SERVICE = 's3';

export interface SigningCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

export interface RequestToSign {
  method: string;
  /** The request's path, already URI-encoded as it goes on the wire. */
  path: string;
  /** Every header here is signed; `host` must be among them. */
  headers: Record<string, string>;
  /** Hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`. */
  payloadHash: string;
}

const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();
const sha256Hex = (data: string): string => createHash('sha256').update(data).digest('hex');

/** `20130524T000000Z`: the timestamp form Signature Version 4 signs (`x-amz-date`). */
export function amzDate(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/**
 * The `Authorization` header of a Signature Version 4 request (header-based, no query
 * parameters). `headers` must already hold `x-amz-date` and `x-amz-content-sha256`.
 */
export function authorizationOf(request: RequestToSign, credentials: SigningCredentials): string {
  const lowered = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const timestamp = lowered['x-amz-date'];
  if (!timestamp) throw new Error('a request to sign needs its x-amz-date header');
  const day = timestamp.slice(0, 8);
  const scope = `${day}/${credentials.region}/${SERVICE}/aws4_request`;
  const names = Object.keys(lowered).sort();
  const canonicalHeaders = names
    .map((name) => `${name}:${lowered[name]!.trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    request.method,
    request.path,
    '',
    canonicalHeaders,
    signedHeaders,
    request.payloadHash,
  ].join('\n');
  const stringToSign = [ALGORITHM, timestamp, scope, sha256Hex(canonicalRequest)].join('\n');
  const dayKey = hmac(`AWS4${credentials.secretAccessKey}`, day);
  const signingKey = hmac(hmac(hmac(dayKey, credentials.region), SERVICE), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  return `${ALGORITHM} Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

/** RFC 3986 encoding of each segment, as Signature Version 4 wants it; `/` stays. */
export function encodeKey(key: string): string {
  return key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join('/');
}
