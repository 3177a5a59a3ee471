/**
 * The object-storage sink (Confluent's S3 sink keys): records are buffered per topic-partition and
 * written as JSON lines, `flush.size` records an object, named as Confluent names them
 * (`topics/<topic>/partition=<p>/<topic>+<p>+<startOffset>.json`, the offset in ten digits). Only a
 * written object's offsets are committed, so records still buffered are read again after a restart.
 * Requests are path-style and signed with the platform's Signature Version 4 signer.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { amzDate, authorizationOf, encodeKey, type SigningCredentials } from '../../../security/sigv4.js';
import { valueToJson } from '../../converters/json-values.js';
import { consumedFrom, type CommittableOffsets, type SinkRecord, type SinkTask } from '../../sink-record.js';

const REQUEST_TIMEOUT_MS = 60_000;

interface PartitionBuffer {
  topic: string;
  partition: number;
  startOffset: number;
  lines: string[];
}

/** The object key Confluent's S3 sink gives a file that starts at `startOffset`. */
export function objectKeyOf(
  topicsDir: string,
  topic: string,
  partition: number,
  startOffset: number,
): string {
  const start = String(startOffset).padStart(10, '0');
  return `${topicsDir}/${topic}/partition=${partition}/${topic}+${partition}+${start}.json`;
}

export class S3SinkTask implements SinkTask {
  readonly className = 'io.confluent.connect.s3.S3SinkTask';
  private readonly buffers = new Map<string, PartitionBuffer>();
  private readonly endpoint: URL;
  private readonly bucket: string;
  private readonly flushSize: number;
  private readonly topicsDir: string;
  private readonly credentials: SigningCredentials;

  constructor(config: Record<string, string>) {
    const region = config['s3.region'] || 'us-west-2';
    this.endpoint = new URL(config['store.url'] || `https://s3.${region}.amazonaws.com`);
    this.bucket = config['s3.bucket.name']!;
    this.flushSize = Math.max(1, Number(config['flush.size']));
    this.topicsDir = config['topics.dir'] || 'topics';
    this.credentials = {
      accessKeyId: config['aws.access.key.id'] ?? '',
      secretAccessKey: config['aws.secret.access.key'] ?? '',
      region,
    };
  }

  async start(): Promise<void> {}

  async put(records: SinkRecord[]): Promise<CommittableOffsets> {
    const committable: CommittableOffsets = [];
    for (const record of records) {
      const id = `${record.topic}\u0000${record.partition}`;
      const buffer = this.buffers.get(id) ?? {
        topic: record.topic,
        partition: record.partition,
        startOffset: record.offset,
        lines: [],
      };
      this.buffers.set(id, buffer);
      // Confluent's JsonFormat: the value as JsonConverter writes it without a schema.
      buffer.lines.push(JSON.stringify(valueToJson(record.value, record.valueSchema)));
      if (buffer.lines.length >= this.flushSize) {
        await this.upload(buffer);
        this.buffers.delete(id);
        committable.push({ ...consumedFrom(record), offset: record.offset + 1 });
      }
    }
    return committable;
  }

  private async upload(buffer: PartitionBuffer): Promise<void> {
    const body = Buffer.from(`${buffer.lines.join('\n')}\n`);
    const key = objectKeyOf(this.topicsDir, buffer.topic, buffer.partition, buffer.startOffset);
    const basePath = this.endpoint.pathname.replace(/\/+$/, '');
    const path = `${basePath}/${encodeKey(this.bucket)}/${encodeKey(key)}`;
    const payloadHash = createHash('sha256').update(body).digest('hex');
    const headers: Record<string, string> = {
      host: this.endpoint.host,
      'content-type': 'application/json',
      'content-length': String(body.length),
      'x-amz-content-sha256': payloadHash,
      'x-amz-date': amzDate(new Date()),
    };
    const authorization = authorizationOf({ method: 'PUT', path, headers, payloadHash }, this.credentials);
    const { status, text } = await this.send(path, { ...headers, authorization }, body);
    if (status < 200 || status >= 300) {
      const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? `HTTP ${status}`;
      throw new Error(`the object store refused to write ${key} to bucket ${this.bucket}: ${code}`);
    }
  }

  private send(
    path: string,
    headers: Record<string, string>,
    body: Buffer,
  ): Promise<{ status: number; text: string }> {
    const client = this.endpoint.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.request(
        {
          hostname: this.endpoint.hostname.replace(/^\[|\]$/g, ''),
          port: this.endpoint.port || undefined,
          method: 'PUT',
          path,
          headers,
          timeout: REQUEST_TIMEOUT_MS,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              text: Buffer.concat(chunks).toString('utf8').slice(0, 65_536),
            }),
          );
          response.on('error', reject);
        },
      );
      request.on('timeout', () =>
        request.destroy(new Error(`the object store at ${this.endpoint.host} timed out`)),
      );
      request.on('error', reject);
      request.end(body);
    });
  }

  async stop(): Promise<void> {
    this.buffers.clear();
  }
}
