import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openEmbeddedStore, type EmbeddedStore } from '../../control-plane/embedded-store/index.js';
import { widgetKind, type Widget } from '../fixtures/store-kinds.js';
import { WatchReader } from '../fixtures/store-watch.js';

const WRITER = fileURLToPath(new URL('../fixtures/store-writer.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NAMESPACE = 'durability';
const ACKNOWLEDGEMENTS_BEFORE_KILL = 300;

interface WriterRun {
  acknowledged: string[][];
  signal: NodeJS.Signals | null;
}

/**
 * Runs the writer on `file`, SIGKILLs it once it has acknowledged enough writes, and answers
 * every line it printed before dying, split into fields.
 */
function runWriterUntilKilled(file: string, mode: 'create' | 'concurrent' | 'update'): Promise<WriterRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, file, mode], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buffered = '';
    let errors = '';
    const acknowledged: string[][] = [];
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) acknowledged.push(line.split(' '));
      if (acknowledged.length >= ACKNOWLEDGEMENTS_BEFORE_KILL && child.exitCode === null)
        child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      if (acknowledged.length < ACKNOWLEDGEMENTS_BEFORE_KILL) {
        reject(new Error(`the writer stopped after ${acknowledged.length} writes: ${errors}`));
      } else resolve({ acknowledged, signal });
    });
  });
}

describe('durability of the embedded store under SIGKILL', () => {
  const directories: string[] = [];
  const stores: EmbeddedStore[] = [];

  function fileInTemporaryDirectory(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-durability-'));
    directories.push(dir);
    return path.join(dir, 'store.db');
  }

  function reopen(file: string): EmbeddedStore {
    const store = openEmbeddedStore({ path: file, kinds: [widgetKind], historyLimit: 1_000_000 });
    stores.push(store);
    return store;
  }

  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of directories.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged create, with one unbroken resourceVersion sequence', async () => {
    const file = fileInTemporaryDirectory();
    const { acknowledged, signal } = await runWriterUntilKilled(file, 'create');
    expect(signal).toBe('SIGKILL');
    const revisions = acknowledged.map(([, revision]) => Number(revision));
    expect(revisions).toEqual(revisions.map((_revision, index) => index + 1));

    const store = reopen(file);
    for (const [name, revision] of acknowledged) {
      const stored = await store.get<Widget>(widgetKind, NAMESPACE, name ?? '');
      expect(stored.metadata.resourceVersion).toBe(revision);
    }
    const all = await store.list(widgetKind, { namespace: NAMESPACE });
    const current = Number(store.currentResourceVersion());
    expect(current).toBeGreaterThanOrEqual(acknowledged.length);
    expect(all.items.map((item) => Number(item.metadata.resourceVersion)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: current }, (_unused, index) => index + 1),
    );

    const watch = new WatchReader(store.watch(widgetKind, { resourceVersion: '1' }));
    const replayed = await watch.take(current - 1);
    watch.stop();
    expect(replayed.map((event) => Number(event.object.metadata.resourceVersion))).toEqual(
      Array.from({ length: current - 1 }, (_unused, index) => index + 2),
    );
  });

  it('keeps every acknowledged create of writers whose commits are grouped', async () => {
    const file = fileInTemporaryDirectory();
    const { acknowledged, signal } = await runWriterUntilKilled(file, 'concurrent');
    expect(signal).toBe('SIGKILL');

    const store = reopen(file);
    for (const [name, revision] of acknowledged) {
      const stored = await store.get<Widget>(widgetKind, NAMESPACE, name ?? '');
      expect(stored.metadata.resourceVersion).toBe(revision);
    }
    const all = await store.list(widgetKind, { namespace: NAMESPACE });
    const current = Number(store.currentResourceVersion());
    expect(all.items.length).toBeGreaterThanOrEqual(acknowledged.length);
    expect(all.items.map((item) => Number(item.metadata.resourceVersion)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: current }, (_unused, index) => index + 1),
    );
  });

  it('never loses an acknowledged update: the stored version is at least the last one acknowledged', async () => {
    const file = fileInTemporaryDirectory();
    const { acknowledged, signal } = await runWriterUntilKilled(file, 'update');
    expect(signal).toBe('SIGKILL');
    const sizes = acknowledged.map(([, size]) => Number(size));
    expect(sizes).toEqual(sizes.map((_size, index) => index + 1));
    const [lastRevision, lastSize] = (acknowledged.at(-1) ?? []).map(Number);

    const store = reopen(file);
    const stored = await store.get<Widget>(widgetKind, NAMESPACE, 'counter');
    const revision = Number(stored.metadata.resourceVersion);
    expect(revision).toBeGreaterThanOrEqual(lastRevision ?? Infinity);
    expect(stored.spec?.size).toBeGreaterThanOrEqual(lastSize ?? Infinity);
    expect(stored.spec?.size).toBe(revision - 1);
    expect(stored.metadata.generation).toBe(revision);
    expect(store.currentResourceVersion()).toBe(String(revision));
  });
});
