import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { ConfigResourceTypes } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { kafkaClient } from '../fixtures/kafka-broker.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
const children: ChildProcess[] = [];

interface Started {
  child: ChildProcess;
  bootstrapServers: string[];
  caCertificate: string;
}

function brokerDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloudplane-kafka-durable-'));
  dirs.push(dir);
  return dir;
}

async function startBroker(dir: string): Promise<Started> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'test/fixtures/kafka-broker-process.ts'), dir, '29160'],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`broker process exited with ${code}`)));
  });
  return { child, ...(JSON.parse(line) as { bootstrapServers: string[]; caCertificate: string }) };
}

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** Eight writers producing to `ledger` until the broker is killed -9: the records acknowledged. */
async function produceUntilKilled(broker: Started): Promise<string[]> {
  const producer = kafkaClient(broker.bootstrapServers, broker.caCertificate, 'dora', 'dora-secret').producer(
    {
      retry: { retries: 0 },
    },
  );
  await producer.connect();
  const acknowledged: string[] = [];
  let sent = 0;
  let stopped = false;
  const writers = Array.from({ length: 8 }, async () => {
    while (!stopped) {
      const value = `record-${sent++}`;
      try {
        await producer.send({ topic: 'ledger', acks: -1, messages: [{ key: value, value }] });
        acknowledged.push(value);
      } catch {
        return;
      }
    }
  });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  broker.child.kill('SIGKILL');
  stopped = true;
  await Promise.all(writers);
  await producer.disconnect().catch(() => undefined);
  return acknowledged;
}

/** The acknowledged records a consumer group does not find in `ledger` after the restart. */
async function missingAfterRestart(broker: Started, acknowledged: readonly string[]): Promise<string[]> {
  const consumer = kafkaClient(broker.bootstrapServers, broker.caCertificate, 'dora', 'dora-secret').consumer(
    {
      groupId: 'auditors',
    },
  );
  await consumer.connect();
  await consumer.subscribe({ topic: 'ledger', fromBeginning: true });
  const seen = new Set<string>();
  await new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        seen.add(message.value!.toString());
        if (acknowledged.every((value) => seen.has(value))) resolve();
      },
    });
  });
  await consumer.disconnect();
  return acknowledged.filter((value) => !seen.has(value));
}

describe('the embedded broker after kill -9', () => {
  it('keeps every acknowledged record', async () => {
    const dir = brokerDir();
    const acknowledged = await produceUntilKilled(await startBroker(dir));
    expect(acknowledged.length).toBeGreaterThan(50);

    const second = await startBroker(dir);
    expect(await missingAfterRestart(second, acknowledged)).toEqual([]);
    second.child.kill('SIGKILL');
  }, 60_000);

  it("keeps every acknowledged record of a topic flushed as Kafka's default (by the OS, not before answering)", async () => {
    const dir = brokerDir();
    const first = await startBroker(dir);
    const admin = kafkaClient(first.bootstrapServers, first.caCertificate, 'dora', 'dora-secret').admin();
    await admin.connect();
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: 'ledger',
          configEntries: [
            { name: 'retention.ms', value: '86400000' },
            { name: 'flush.messages', value: '9223372036854775807' },
          ],
        },
      ],
    });
    await admin.disconnect();
    const acknowledged = await produceUntilKilled(first);
    expect(acknowledged.length).toBeGreaterThan(50);

    const second = await startBroker(dir);
    const admin2 = kafkaClient(second.bootstrapServers, second.caCertificate, 'dora', 'dora-secret').admin();
    await admin2.connect();
    const described = await admin2.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: 'ledger', configNames: ['flush.messages'] }],
    });
    await admin2.disconnect();
    expect(described.resources[0]!.configEntries[0]!.configValue).toBe('9223372036854775807');
    expect(await missingAfterRestart(second, acknowledged)).toEqual([]);
    second.child.kill('SIGKILL');
  }, 60_000);

  it('keeps every record of idempotent producers retrying across it exactly once', async () => {
    const dir = brokerDir();
    const first = await startBroker(dir);
    // Retries outlast the restart: the same batches, with the same sequence numbers, come again.
    const client = kafkaClient(first.bootstrapServers, first.caCertificate, 'dora', 'dora-secret', {
      retries: 1000,
      initialRetryTime: 50,
      maxRetryTime: 500,
    });
    const producers = Array.from({ length: 3 }, () =>
      client.producer({ idempotent: true, maxInFlightRequests: 1 }),
    );
    await Promise.all(producers.map((producer) => producer.connect()));
    const acknowledged: string[] = [];
    const failures: string[] = [];
    let stopped = false;
    const writers = producers.map(async (producer, index) => {
      for (let sent = 0; !stopped; sent++) {
        const value = `producer-${index}-record-${sent}`;
        try {
          await producer.send({ topic: 'ledger', acks: -1, messages: [{ key: value, value }] });
        } catch (error) {
          failures.push(`${value}: ${(error as Error).message}`);
          return;
        }
        acknowledged.push(value);
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    first.child.kill('SIGKILL');
    const atKill = acknowledged.length;
    const second = await startBroker(dir);
    // Stop once every producer has been answered after the restart.
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (acknowledged.length >= atKill + 30 || failures.length > 0) {
          clearInterval(check);
          resolve();
        }
      }, 50);
    });
    stopped = true;
    await Promise.all(writers);
    await Promise.all(producers.map((producer) => producer.disconnect()));
    expect(failures).toEqual([]);
    expect(atKill).toBeGreaterThan(30);

    const reader = kafkaClient(second.bootstrapServers, second.caCertificate, 'dora', 'dora-secret');
    const admin = reader.admin();
    await admin.connect();
    const ends = await admin.fetchTopicOffsets('ledger');
    await admin.disconnect();
    const total = ends.reduce((sum, entry) => sum + Number(entry.high), 0);
    const consumer = reader.consumer({ groupId: 'idempotent-auditors' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'ledger', fromBeginning: true });
    const seen: string[] = [];
    await new Promise<void>((resolve) => {
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.push(message.value!.toString());
          if (seen.length === total) resolve();
        },
      });
    });
    await consumer.disconnect();
    const counts = new Map<string, number>();
    for (const value of seen) counts.set(value, (counts.get(value) ?? 0) + 1);
    expect([...counts].filter(([, count]) => count > 1)).toEqual([]);
    expect(acknowledged.filter((value) => !counts.has(value))).toEqual([]);
    second.child.kill('SIGKILL');
  }, 90_000);
});
