import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../crds/registry.js';
import type { StreamingClusterObservation } from '../../workloads/runtime.js';
import {
  startStreaming,
  streamingCluster,
  streamingUser,
  type StreamingFixture,
} from '../fixtures/kafka-broker.js';

/** Debian's Python, where `python3-confluent-kafka` lives (hack/install-test-packages.sh installs it). */
const PYTHON = '/usr/bin/python3';
const confluentPresent = spawnSync(PYTHON, ['-c', 'import confluent_kafka']).status === 0;
if (!confluentPresent)
  console.warn(
    `SKIPPING the confluent-kafka suite of the embedded broker: ${PYTHON} cannot import confluent_kafka; run hack/install-test-packages.sh`,
  );

const DRIVER = path.join(packageRoot(import.meta.url), 'test/fixtures/confluent-kafka-driver.py');

describe.skipIf(!confluentPresent)('the embedded broker with python3-confluent-kafka (librdkafka)', () => {
  const cluster = streamingCluster('esc_confluent', 'pro');
  let fixture: StreamingFixture;
  let observed: StreamingClusterObservation;
  let caFile: string;

  beforeAll(async () => {
    fixture = startStreaming({ first: 29220, last: 29239 });
    observed = await fixture.streaming.ensureCluster(cluster);
    caFile = path.join(fixture.dir, 'ca-for-confluent.crt');
    fs.writeFileSync(caFile, observed.caCertificate);
    const user = streamingUser('paula', 'paula-secret', 'payments', 'payments-*');
    await fixture.streaming.ensureUser(cluster, {
      ...user,
      acls: [
        ...user.acls,
        {
          resourceType: 'transactional_id',
          patternType: 'prefixed',
          name: 'payments-',
          operations: ['write', 'describe'],
          permission: 'allow',
        },
      ],
    });
    for (const [name, partitions] of [
      ['payments', 3],
      ['payments-txn', 1],
      ['payments-out', 3],
    ] as const) {
      await fixture.streaming.ensureTopic(cluster, {
        name,
        partitions,
        replicas: 1,
        retentionMs: 3_600_000,
        cleanupPolicy: 'delete',
      });
    }
  });

  afterAll(async () => {
    await fixture?.cleanup();
  });

  it('takes an idempotent producer and transactions, read_committed readers seeing only committed records', async () => {
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        PYTHON,
        [DRIVER, observed.bootstrapServers[0]!, caFile, 'paula', 'paula-secret'],
        { timeout: 120_000 },
        (error, stdout, stderr) =>
          error
            ? reject(new Error(`confluent-kafka driver failed: ${stderr || error.message}`))
            : resolve(stdout),
      );
    });
    const result = JSON.parse(output) as Record<string, unknown>;
    expect(result).toEqual({
      idempotent_acknowledged: 300,
      idempotent_read: 300,
      idempotent_distinct: 300,
      // While a transaction is open at offset 10, a read_committed reader's end is its first offset.
      open_low_high_committed: [0, 10],
      open_low_high_uncommitted: [0, 11],
      read_committed: [
        'committed-0',
        'committed-1',
        'committed-2',
        'committed-3',
        'committed-4',
        'committed-last',
      ],
      read_uncommitted: [
        'committed-0',
        'committed-1',
        'committed-2',
        'committed-3',
        'committed-4',
        'aborted-0',
        'aborted-1',
        'aborted-2',
        'committed-last',
      ],
      copied: 300,
      copier_committed: 300,
      copied_read: 300,
    });
  });
});
