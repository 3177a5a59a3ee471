/**
 * An S3-compatible bucket for backup files: put a file, get it back into a file, delete it.
 * Requests are addressed path-style (`<endpoint>/<bucket>/<key>`), which every S3-compatible
 * server understands, and signed with AWS Signature Version 4 over node:crypto, so no SDK is
 * needed for three calls. Keys and signatures never appear in an error or a log line.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { pipeline } from 'node:stream/promises';
import type { BackupBucketConfig } from '../../config/workloads.js';
import { amzDate, authorizationOf, encodeKey } from '../../security/sigv4.js';
import { WorkloadError } from '../runtime.js';

const EMPTY_SHA256 = createHash('sha256').digest('hex');
/** A server silent this long on one connection is given up on; a transfer that moves is not. */
const IDLE_TIMEOUT_MS = 60_000;
/** An error document is a few hundred bytes; more is not read. */
const MAX_ERROR_BYTES = 64 * 1024;
const LOCATION_SCHEME = 's3://';

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

async function readLimited(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    if (size < MAX_ERROR_BYTES) chunks.push(chunk);
    size += chunk.length;
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_ERROR_BYTES);
}

const elementOf = (xml: string, name: string): string | undefined =>
  new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1]?.trim();

/** The S3 error code of a refusal: `NoSuchKey`, `SignatureDoesNotMatch`, … */
class BucketRefusal extends WorkloadError {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super('BackupStorageFailed', message);
  }
}

/** Where an object is, as a backup's location says it: `s3://<bucket>/<key>`. */
export interface ObjectPlace {
  bucket: string;
  key: string;
}

export function locationOf(place: ObjectPlace): string {
  return `${LOCATION_SCHEME}${place.bucket}/${place.key}`;
}

/** The object a location names, or nothing when it is not a bucket's (a local file). */
export function placeOf(location: string): ObjectPlace | undefined {
  if (!location.startsWith(LOCATION_SCHEME)) return undefined;
  const rest = location.slice(LOCATION_SCHEME.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) {
    throw new WorkloadError('InvalidBackup', 'the backup location names no object in a bucket');
  }
  return { bucket: rest.slice(0, slash), key: rest.slice(slash + 1) };
}

export class BackupBucket {
  private readonly endpoint: URL;

  constructor(private readonly config: BackupBucketConfig) {
    this.endpoint = new URL(config.endpoint);
  }

  get bucket(): string {
    return this.config.bucket;
  }

  get prefix(): string {
    return this.config.prefix;
  }

  /** Uploads a file whole; the server checks it against the SHA-256 the request is signed with. */
  async put(key: string, file: string): Promise<void> {
    const [{ size }, payloadHash] = await Promise.all([fs.stat(file), fileSha256(file)]);
    const response = await this.send('PUT', key, payloadHash, 'upload the backup', {
      headers: { 'content-length': String(size), 'content-type': 'application/octet-stream' },
      body: file,
    });
    response.resume();
  }

  /** Downloads an object into `file` (created private); a missing object is `BackupMissing`. */
  async get(key: string, file: string): Promise<void> {
    const response = await this.send('GET', key, EMPTY_SHA256, 'download the backup').catch(
      (error: unknown) => {
        if (error instanceof BucketRefusal && error.code === 'NoSuchKey') {
          throw new WorkloadError('BackupMissing', `the backup is gone from its bucket: ${error.message}`);
        }
        throw error;
      },
    );
    await pipeline(response, createWriteStream(file, { mode: 0o600 })).catch((error: unknown) => {
      throw new WorkloadError(
        'BackupStorageFailed',
        `the backup download broke off: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }

  /** Deletes an object; one already gone is fine. */
  async delete(key: string): Promise<void> {
    const response = await this.send('DELETE', key, EMPTY_SHA256, 'delete the backup').catch(
      (error: unknown) => {
        if (error instanceof BucketRefusal && error.code === 'NoSuchKey') return undefined;
        throw error;
      },
    );
    response?.resume();
  }

  /** One signed request; a status other than 2xx becomes a `WorkloadError` with the server's reason. */
  private async send(
    method: string,
    key: string,
    payloadHash: string,
    what: string,
    extra: { headers?: Record<string, string>; body?: string } = {},
  ): Promise<IncomingMessage> {
    const basePath = this.endpoint.pathname.replace(/\/+$/, '');
    const path = `${basePath}/${encodeKey(this.config.bucket)}/${encodeKey(key)}`;
    const headers: Record<string, string> = {
      host: this.endpoint.host,
      'x-amz-content-sha256': payloadHash,
      // A server refuses a request signed more than 15 minutes away from its own clock.
      'x-amz-date': amzDate(new Date()),
      ...extra.headers,
    };
    const authorization = authorizationOf({ method, path, headers, payloadHash }, this.config);
    const response = await this.exchange(method, path, { ...headers, authorization }, extra.body, what);
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) return response;
    const document = await readLimited(response);
    const code = elementOf(document, 'Code') ?? `HTTP ${status}`;
    const said = this.withoutSecrets(elementOf(document, 'Message') ?? response.statusMessage ?? '');
    throw new BucketRefusal(code, `the backup bucket refused to ${what}: ${code}${said ? `: ${said}` : ''}`);
  }

  private exchange(
    method: string,
    path: string,
    headers: OutgoingHttpHeaders,
    bodyFile: string | undefined,
    what: string,
  ): Promise<IncomingMessage> {
    const client = this.endpoint.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const unreachable = (error: Error & { code?: string }) =>
        reject(
          new WorkloadError(
            'BackupStorageFailed',
            `could not ${what}: the backup bucket at ${this.endpoint.host} did not answer (${error.code ?? error.message})`,
            { cause: error },
          ),
        );
      const request = client.request(
        {
          protocol: this.endpoint.protocol,
          hostname: this.endpoint.hostname.replace(/^\[|\]$/g, ''),
          port: this.endpoint.port || undefined,
          method,
          path,
          headers,
          timeout: IDLE_TIMEOUT_MS,
        },
        resolve,
      );
      request.on('timeout', () =>
        request.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })),
      );
      request.on('error', unreachable);
      if (bodyFile === undefined) {
        request.end();
        return;
      }
      const body = createReadStream(bodyFile);
      body.on('error', (error) => request.destroy(error));
      body.pipe(request);
    });
  }

  /** A server may quote what it was sent; the keys never leave this process in a message. */
  private withoutSecrets(text: string): string {
    return [this.config.secretAccessKey, this.config.accessKeyId].reduce(
      (said, secret) => said.split(secret).join('(not shown)'),
      text,
    );
  }
}
