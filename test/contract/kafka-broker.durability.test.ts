import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { kafkaClient } from '../fixtures/kafka-broker.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloudplane-kafka-durable-'));
const children: ChildProcess[] = [];

interface Started {
  child: ChildProcess;
  bootstrapServers: string[];
  caCertificate: string;
}

async function startBroker(): Promise<Started> {
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
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the embedded broker after kill -9', () => {
  it('keeps every acknowledged record', async () => {
    const first = await startBroker();
    const producer = kafkaClient(first.bootstrapServers, first.caCertificate, 'dora', 'dora-secret').producer(
      { retry: { retries: 0 } },
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
    first.child.kill('SIGKILL');
    stopped = true;
    await Promise.all(writers);
    await producer.disconnect().catch(() => undefined);
    expect(acknowledged.length).toBeGreaterThan(50);

    const second = await startBroker();
    const consumer = kafkaClient(
      second.bootstrapServers,
      second.caCertificate,
      'dora',
      'dora-secret',
    ).consumer({ groupId: 'auditors' });
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
    expect(acknowledged.filter((value) => !seen.has(value))).toEqual([]);
    second.child.kill('SIGKILL');
  }, 60_000);
});
