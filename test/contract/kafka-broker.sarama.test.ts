import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../crds/registry.js';
import type { StreamingClusterObservation } from '../../workloads/runtime.js';
import {
  kafkaClient,
  startStreaming,
  streamingCluster,
  streamingUser,
  type StreamingFixture,
} from '../fixtures/kafka-broker.js';

/** Debian's Go sources tree, where `golang-github-shopify-sarama-dev` lives (hack/install-test-packages.sh installs it). */
const GOPATH = '/usr/share/gocode';
const goPresent = spawnSync('go', ['version']).status === 0;
const saramaPresent =
  fs.existsSync(path.join(GOPATH, 'src/github.com/Shopify/sarama')) &&
  fs.existsSync(path.join(GOPATH, 'src/github.com/xdg-go/scram'));
if (!goPresent || !saramaPresent)
  console.warn(
    `SKIPPING the Sarama suite of the embedded broker: ${goPresent ? `no Sarama or xdg-go/scram under ${GOPATH}` : 'no go on the PATH'}; run hack/install-test-packages.sh`,
  );

const DRIVER_SOURCE = path.join(packageRoot(import.meta.url), 'test/fixtures/sarama-driver');

interface DriverRecord {
  partition: number;
  offset: number;
  key: string;
  value: string;
}

/** Runs `program` and resolves its stdout, rejecting with its stderr. */
function run(
  program: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      program,
      args,
      { timeout: 90_000, maxBuffer: 16 * 1024 * 1024, ...options },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`${path.basename(program)} ${args[0]} failed: ${stderr || error.message}`))
          : resolve(stdout),
    );
  });
}

describe.skipIf(!goPresent || !saramaPresent)('the embedded broker with Sarama (Go)', () => {
  const cluster = streamingCluster('esc_sarama', 'pro');
  let fixture: StreamingFixture;
  let observed: StreamingClusterObservation;
  let driver: string;
  let connection: string[];

  /** One run of the driver's `subcommand`, its JSON output parsed. */
  const sarama = async <T>(subcommand: string, ...args: string[]): Promise<T> =>
    JSON.parse(await run(driver, [subcommand, ...connection, ...args])) as T;

  beforeAll(async () => {
    fixture = startStreaming({ first: 29580, last: 29599 });
    // Built offline from Debian's sources, outside any module.
    driver = path.join(fixture.dir, 'sarama-driver');
    await run('go', ['build', '-o', driver, '.'], {
      cwd: DRIVER_SOURCE,
      env: {
        ...process.env,
        GO111MODULE: 'off',
        GOPATH,
        GOCACHE: path.join(fixture.dir, 'go-cache'),
        GOFLAGS: '',
      },
    }).catch((error: unknown) => {
      throw new Error(`building ${DRIVER_SOURCE}: ${String(error)}`);
    });
    observed = await fixture.streaming.ensureCluster(cluster);
    const caFile = path.join(fixture.dir, 'ca-for-sarama.crt');
    fs.writeFileSync(caFile, observed.caCertificate);
    connection = [observed.bootstrapServers[0]!, caFile, 'gopher', 'gopher-secret'];
    const user = streamingUser('gopher', 'gopher-secret', 'orders', 'orders-*');
    // DESCRIBE and ALTER on the cluster: Sarama's ClusterAdmin lists, grants and revokes ACLs.
    await fixture.streaming.ensureUser(cluster, {
      ...user,
      acls: [
        ...user.acls,
        {
          resourceType: 'cluster',
          patternType: 'literal',
          name: 'kafka-cluster',
          operations: ['describe', 'alter'],
          permission: 'allow',
        },
      ],
    });
    await fixture.streaming.ensureTopic(cluster, {
      name: 'orders',
      partitions: 3,
      replicas: 1,
      retentionMs: 3_600_000,
      cleanupPolicy: 'delete',
    });
  }, 300_000);

  afterAll(async () => {
    await fixture?.cleanup();
  });

  it('reads back what an idempotent producer sent exactly once, in order, and commits the group offsets', async () => {
    const sent = 200;
    expect(await sarama('produce', 'orders', String(sent), 'none')).toEqual({
      acknowledged: sent,
      errors: [],
    });

    const { records } = await sarama<{ records: DriverRecord[] }>(
      'consume',
      'orders',
      'orders-readers',
      String(sent),
      '1500',
    );
    expect(records).toHaveLength(sent);
    expect(new Set(records.map((record) => record.value)).size).toBe(sent);
    const sequence = (record: DriverRecord) => Number(record.value.slice('value-'.length));
    for (const record of records) expect(record.key).toBe(`key-${sequence(record) % 7}`);
    // A key lands on one partition, and a partition holds its records in the order they were sent from offset 0.
    const partitionsOfKey = new Map<string, Set<number>>();
    for (const record of records)
      partitionsOfKey.set(record.key, (partitionsOfKey.get(record.key) ?? new Set()).add(record.partition));
    for (const partitions of partitionsOfKey.values()) expect(partitions.size).toBe(1);
    const ends = new Map<number, number>();
    for (const partition of [0, 1, 2]) {
      const held = records.filter((record) => record.partition === partition);
      expect(held.map((record) => record.offset)).toEqual(held.map((_, index) => index));
      expect(held.map(sequence)).toEqual([...held.map(sequence)].sort((a, b) => a - b));
      ends.set(partition, held.length);
    }

    const admin = kafkaClient(
      observed.bootstrapServers,
      observed.caCertificate,
      'gopher',
      'gopher-secret',
    ).admin();
    await admin.connect();
    try {
      const [committed] = await admin.fetchOffsets({ groupId: 'orders-readers', topics: ['orders'] });
      expect(
        committed!.partitions
          .map(({ partition, offset }) => [partition, Number(offset)])
          .sort(([a], [b]) => a! - b!),
      ).toEqual([0, 1, 2].map((partition) => [partition, ends.get(partition)]));
    } finally {
      await admin.disconnect();
    }
    expect(await sarama('groups', 'orders-readers', 'orders', '3')).toEqual({
      protocol_type: 'consumer',
      state: 'Empty',
      members: 0,
      offsets: [0, 1, 2].map((partition) => ends.get(partition)),
    });
    // The group resumes where it committed: nothing is delivered twice.
    expect(await sarama('consume', 'orders', 'orders-readers', '0', '2000')).toEqual({ records: [] });
  }, 120_000);

  it('takes batches in every codec Sarama compresses with and hands them back to a consumer group', async () => {
    const codecs = ['gzip', 'snappy', 'lz4', 'zstd'];
    for (const codec of codecs) {
      await fixture.streaming.ensureTopic(cluster, {
        name: `orders-${codec}`,
        partitions: 1,
        replicas: 1,
        retentionMs: 3_600_000,
        cleanupPolicy: 'delete',
      });
      expect(await sarama('produce', `orders-${codec}`, '50', codec)).toEqual({
        acknowledged: 50,
        errors: [],
      });
      const { records } = await sarama<{ records: DriverRecord[] }>(
        'consume',
        `orders-${codec}`,
        `orders-${codec}-readers`,
        '50',
        '1000',
      );
      expect(records.map((record) => [record.offset, record.value])).toEqual(
        Array.from({ length: 50 }, (_, index) => [index, `value-${index}`]),
      );
    }
  }, 120_000);

  it('walks a topic through the ClusterAdmin: created, described, grown, configured, granted, revoked, deleted', async () => {
    expect(await sarama('admin', 'orders-admin')).toEqual({
      brokers: 3,
      listed_after_create: true,
      partitions_after_create: 2,
      configs_after_create: { 'retention.ms': '7200000', 'cleanup.policy': 'delete' },
      partitions_after_growth: 3,
      configs_after_alter: { 'retention.ms': '3600000', 'cleanup.policy': 'delete' },
      // Kafka's numbering: operation 3 is READ, permission 3 is ALLOW.
      acls_granted: ['User:gopher 3 3'],
      acls_revoked: 1,
      acls_after_revoke: [],
      listed_after_delete: false,
    });
  }, 120_000);
});
