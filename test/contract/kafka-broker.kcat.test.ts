import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executableOnPath } from '../../config/workloads.js';
import type { StreamingClusterObservation } from '../../workloads/runtime.js';
import {
  startStreaming,
  streamingCluster,
  streamingUser,
  type StreamingFixture,
} from '../fixtures/kafka-broker.js';

const run = promisify(execFile);
const kcat = executableOnPath('kcat', process.env.PATH);
if (!kcat)
  console.warn('kcat is not installed (apt-get install kcat): the kcat tests of the embedded broker SKIP');

const cluster = streamingCluster('esc_kcat');
let fixture: StreamingFixture;
let observed: StreamingClusterObservation;
let caFile: string;

function kcatArgs(...args: string[]): string[] {
  return [
    '-b',
    observed.bootstrapServers[0]!,
    '-X',
    'security.protocol=SASL_SSL',
    '-X',
    'sasl.mechanisms=SCRAM-SHA-512',
    '-X',
    'sasl.username=carol',
    '-X',
    'sasl.password=carol-secret',
    '-X',
    `ssl.ca.location=${caFile}`,
    ...args,
  ];
}

async function kcatRun(args: string[], input?: string): Promise<string> {
  const child = run(kcat!, kcatArgs(...args), { timeout: 20_000 });
  if (input !== undefined) {
    child.child.stdin!.end(input);
  }
  return (await child).stdout;
}

describe.skipIf(!kcat)('the embedded broker with kcat (librdkafka) over SASL_SSL and SCRAM-SHA-512', () => {
  beforeAll(async () => {
    fixture = startStreaming({ first: 29120, last: 29139 });
    observed = await fixture.streaming.ensureCluster(cluster);
    caFile = path.join(fixture.dir, 'ca-for-kcat.crt');
    fs.writeFileSync(caFile, observed.caCertificate);
    await fixture.streaming.ensureUser(cluster, streamingUser('carol', 'carol-secret', 'events', 'kcat-*'));
    await fixture.streaming.ensureTopic(cluster, {
      name: 'events',
      partitions: 2,
      replicas: 1,
      retentionMs: 3_600_000,
      cleanupPolicy: 'delete',
    });
  });

  afterAll(async () => {
    await fixture?.cleanup();
  });

  it('lists the broker and the topics with -L', async () => {
    const listing = await kcatRun(['-L']);
    expect(listing).toContain(`broker 0 at ${observed.bootstrapServers[0]}`);
    expect(listing).toContain('topic "events" with 2 partitions');
  });

  it('produces with -P and reads the records back with -C -o beginning -e', async () => {
    await kcatRun(['-P', '-t', 'events'], 'alpha\nbeta\ngamma\n');
    const consumed = await kcatRun(['-C', '-t', 'events', '-o', 'beginning', '-e']);
    expect(consumed.trim().split('\n').sort()).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('consumes in a group with -G and commits', async () => {
    const consumed = await kcatRun(['-C', '-G', 'kcat-group', '-o', 'beginning', '-e', 'events']);
    expect(consumed.trim().split('\n').sort()).toEqual(['alpha', 'beta', 'gamma']);
    const lag = await fixture.streaming.groupLag(cluster, 'kcat-group');
    expect(lag?.totalLag).toBe(0);
  });

  it('produces as an idempotent producer with -X enable.idempotence=true, each record once', async () => {
    await fixture.streaming.ensureTopic(cluster, {
      name: 'events-idempotent',
      partitions: 2,
      replicas: 1,
      retentionMs: 3_600_000,
      cleanupPolicy: 'delete',
    });
    const lines = Array.from({ length: 500 }, (_, i) => `line-${i}`);
    await kcatRun(
      ['-P', '-X', 'enable.idempotence=true', '-t', 'events-idempotent'],
      `${lines.join('\n')}\n`,
    );
    const consumed = await kcatRun(['-C', '-t', 'events-idempotent', '-o', 'beginning', '-e']);
    expect(consumed.trim().split('\n').sort()).toEqual([...lines].sort());
  });
});
