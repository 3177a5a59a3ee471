import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  WorkloadError,
  type StreamingClusterObservation,
  type TopicObservation,
} from '../../workloads/runtime.js';
import { createLocalStreaming } from '../../workloads/local/streaming.js';
import {
  kafkaClient,
  startStreaming,
  streamingCluster,
  streamingUser,
  type StreamingFixture,
} from '../fixtures/kafka-broker.js';

const cluster = streamingCluster('esc_local', 'starter', { partitions: 6, retentionMaxMs: 3_600_000 });
let fixture: StreamingFixture;
let observed: StreamingClusterObservation;

beforeAll(async () => {
  fixture = startStreaming({ first: 29140, last: 29159 });
  observed = await fixture.streaming.ensureCluster(cluster);
  await fixture.streaming.ensureUser(cluster, streamingUser('erin', 'erin-secret'));
});

afterAll(async () => {
  await fixture?.cleanup();
});

const topic = (name: string, partitions = 1, retentionMs = 60_000) => ({
  name,
  partitions,
  replicas: 1,
  retentionMs,
  cleanupPolicy: 'delete' as const,
});

/** Sends raw bytes over TLS and resolves with what came back once the broker closed the socket. */
function rawExchange(
  bytes: Buffer,
  closeAfterMs = 2000,
): Promise<{ answer: Buffer; closedByBroker: boolean }> {
  const [host = '', port = ''] = observed.bootstrapServers[0]!.split(':');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = tls.connect({ host, port: Number(port), ca: observed.caCertificate }, () =>
      socket.write(bytes),
    );
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer: Buffer.concat(chunks), closedByBroker: false });
    }, closeAfterMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer: Buffer.concat(chunks), closedByBroker: true });
    });
  });
}

function request(apiKey: number, version: number, body: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(10);
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(version, 2);
  header.writeInt32BE(7, 4);
  header.writeInt16BE(-1, 8);
  const size = Buffer.alloc(4);
  size.writeInt32BE(header.length + body.length);
  return Buffer.concat([size, header, body]);
}

describe('the local streaming runtime', () => {
  it('serves TLS with a certificate from the streaming authority, whose key only the owner reads', () => {
    expect(observed).toMatchObject({ realization: 'real', state: 'ready' });
    expect(observed.bootstrapServers).toHaveLength(1);
    expect(observed.caCertificate).toContain('BEGIN CERTIFICATE');
    const keyFile = path.join(fixture.dir, 'streaming', 'ca.key');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
  });

  it('creates a topic, grows its partitions, and tells listeners', async () => {
    const seen: TopicObservation[][] = [];
    const stop = fixture.streaming.onTopicsChanged(cluster.id, (topics) => seen.push(topics));
    await fixture.streaming.ensureTopic(cluster, topic('clicks', 1));
    const grown = await fixture.streaming.ensureTopic(cluster, topic('clicks', 2));
    stop();
    expect(grown.partitionDetails.map((entry) => entry.partition)).toEqual([0, 1]);
    expect(seen.at(-1)?.find((entry) => entry.name === 'clicks')?.partitions).toBe(2);
  });

  it.each([
    ['more partitions than the tier allows', topic('too-many', 10), 'PartitionLimit'],
    ['a retention over the tier maximum', topic('too-long', 1, 7_200_000), 'RetentionLimit'],
    ['forever on a tier with a maximum', topic('forever', 1, -1), 'RetentionLimit'],
    ['an invalid name', topic('no spaces', 1), 'InvalidTopicName'],
    ['the name ..', topic('..', 1), 'InvalidTopicName'],
  ])('refuses %s with a WorkloadError', async (_case, spec, reason) => {
    const error = await fixture.streaming.ensureTopic(cluster, spec).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkloadError);
    expect((error as WorkloadError).reason).toBe(reason);
  });

  it('answers ApiVersions it does not speak with UNSUPPORTED_VERSION and its ranges, v0-framed', async () => {
    const { answer } = await rawExchange(request(18, 5), 500);
    expect(answer.readInt32BE(4)).toBe(7);
    expect(answer.readInt16BE(8)).toBe(35);
    expect(answer.readInt32BE(10)).toBeGreaterThan(15);
  });

  it.each([
    ['a negative frame size', Buffer.from([0xff, 0xff, 0xff, 0xff])],
    ['a frame over 100 MiB', Buffer.from([0x06, 0x40, 0x00, 0x01])],
    ['a truncated request header', Buffer.from([0, 0, 0, 3, 0, 18, 0])],
    ['an unknown API key', request(999, 0)],
    ['Metadata before authentication', request(3, 1, Buffer.from([0xff, 0xff, 0xff, 0xff]))],
  ])('closes the connection on %s and keeps serving others', async (_case, bytes) => {
    const { closedByBroker } = await rawExchange(bytes);
    expect(closedByBroker).toBe(true);
    const admin = kafkaClient(
      observed.bootstrapServers,
      observed.caCertificate,
      'erin',
      'erin-secret',
    ).admin();
    await admin.connect();
    expect(await admin.listTopics()).toContain('clicks');
    await admin.disconnect();
  });

  it('adopts the cluster after a restart: same ports, same topics and users', async () => {
    await fixture.streaming.close();
    const again = createLocalStreaming(fixture.options);
    try {
      const adopted = await again.ensureCluster(cluster);
      expect(adopted.bootstrapServers).toEqual(observed.bootstrapServers);
      expect(adopted.caCertificate).toBe(observed.caCertificate);
      expect((await again.listTopics(cluster)).map((entry) => entry.name)).toContain('clicks');
      const admin = kafkaClient(
        adopted.bootstrapServers,
        adopted.caCertificate,
        'erin',
        'erin-secret',
      ).admin();
      await admin.connect();
      expect(await admin.listTopics()).toContain('clicks');
      await admin.disconnect();
    } finally {
      await again.close();
    }
    fixture.streaming = createLocalStreaming(fixture.options);
  });

  it('says plainly that the brokers of a pro cluster share one machine', async () => {
    const pro = streamingCluster('esc_local_pro', 'pro');
    const made = await fixture.streaming.ensureCluster(pro);
    try {
      expect(made.bootstrapServers).toHaveLength(3);
      expect(made.message).toContain('share one machine');
      expect(observed.message).toBeUndefined();
    } finally {
      await fixture.streaming.removeCluster(pro);
    }
  });

  it('removes a cluster: its ports close and its data goes', async () => {
    const doomed = streamingCluster('esc_doomed');
    const made = await fixture.streaming.ensureCluster(doomed);
    expect(made.bootstrapServers[0]).not.toBe(observed.bootstrapServers[0]);
    await fixture.streaming.removeCluster(doomed);
    expect(fs.existsSync(path.join(fixture.dir, 'streaming', 'esc_doomed'))).toBe(false);
    expect(await fixture.streaming.listTopics(doomed)).toEqual([]);
    const [host = '', port = ''] = made.bootstrapServers[0]!.split(':');
    const refused = await new Promise<boolean>((resolve) => {
      const socket = tls.connect({ host, port: Number(port), ca: made.caCertificate });
      socket.on('error', () => resolve(true));
      socket.on('secureConnect', () => {
        socket.destroy();
        resolve(false);
      });
    });
    expect(refused).toBe(true);
  });
});
