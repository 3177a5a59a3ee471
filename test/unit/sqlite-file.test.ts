import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  openSqliteFile,
  PAGE_CACHE_KIB,
  type SqliteFile,
  type SqliteFileOptions,
} from '../../control-plane/embedded-store/index.js';

describe('openSqliteFile', () => {
  const opened: SqliteFile[] = [];
  const dirs: string[] = [];
  const open = (file: string, options?: SqliteFileOptions) => {
    const sqlite = openSqliteFile(file, options);
    opened.push(sqlite);
    return sqlite;
  };
  const tempFile = (name: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-sqlite-file-'));
    dirs.push(dir);
    return path.join(dir, 'nested', name);
  };

  afterEach(() => {
    for (const { db, walSync } of opened.splice(0)) {
      db.close();
      walSync.close();
    }
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates the directory, writes ahead and commits NORMAL with its page cache bounded', async () => {
    const file = tempFile('a.db');
    const { db, walSync } = open(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('cache_size', { simple: true })).toBe(-PAGE_CACHE_KIB);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    db.exec('CREATE TABLE t (v)');
    db.prepare('INSERT INTO t VALUES (?)').run('x');
    await new Promise<void>((resolve, reject) =>
      walSync.afterCommit((error) => (error ? reject(error) : resolve())),
    );
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(0);
  });

  it('gives a new file the page size asked and an existing one keeps its own', () => {
    const file = tempFile('b.db');
    const first = open(file, { pageBytes: 16384 });
    first.db.exec('CREATE TABLE t (v)');
    expect(first.db.pragma('page_size', { simple: true })).toBe(16384);
    const second = open(file, { pageBytes: 8192, busyTimeoutMs: 250 });
    expect(second.db.pragma('page_size', { simple: true })).toBe(16384);
    expect(second.db.pragma('busy_timeout', { simple: true })).toBe(250);
  });

  it('commits FULL in memory, where there is no WAL to flush', async () => {
    const { db, walSync } = open(':memory:');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('cache_size', { simple: true })).toBe(-PAGE_CACHE_KIB);
    let answered = false;
    walSync.afterCommit(() => (answered = true));
    expect(answered).toBe(true);
  });
});
