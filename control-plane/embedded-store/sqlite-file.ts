import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { WalSync } from './wal-sync.js';

/**
 * The pages of its file a connection keeps in memory, in KiB. better-sqlite3 builds SQLite with
 * 16 MB a connection (SQLite's own default is 2 MB), and a connection only ever grows its cache
 * to that bound: under a write load the pages each insert touches (an audit log's, a topic's
 * batches) fill it within seconds and stay, 16 MB of native memory a file, most of it pages not
 * read again. Past this bound the operating system's page cache serves a read, a copy of a page
 * away.
 */
export const PAGE_CACHE_KIB = 2048;

/** How long a statement waits for another connection's write lock before failing with SQLITE_BUSY. */
const DEFAULT_BUSY_TIMEOUT_MS = 5000;

export interface SqliteFileOptions {
  busyTimeoutMs?: number;
  /** The page size of a new file (an existing one keeps its own); SQLite's 4 KiB when unset. */
  pageBytes?: number;
}

export interface SqliteFile {
  db: Database.Database;
  /**
   * Flushes the WAL for the commits of `db`, which commit with `synchronous=NORMAL` (see
   * `WalSync`); a file that cannot be in WAL mode (in memory) commits with `synchronous=FULL`
   * and its `WalSync` answers at once.
   */
  walSync: WalSync;
}

/**
 * Opens (creating it and its directory when missing) a SQLite file the way every file of the
 * product is opened: write-ahead log, commits made durable by `WalSync` off the event loop,
 * foreign keys on, a busy timeout and a page cache of `PAGE_CACHE_KIB`.
 */
export function openSqliteFile(file: string, options: SqliteFileOptions = {}): SqliteFile {
  const inMemory = file === ':memory:' || file === '';
  if (!inMemory) fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  try {
    if (options.pageBytes !== undefined) db.pragma(`page_size = ${Math.trunc(options.pageBytes)}`);
    const journal = db.pragma('journal_mode = WAL', { simple: true });
    const walPath = !inMemory && journal === 'wal' ? `${path.resolve(file)}-wal` : undefined;
    db.pragma(walPath === undefined ? 'synchronous = FULL' : 'synchronous = NORMAL');
    db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS)}`);
    db.pragma('foreign_keys = ON');
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    return { db, walSync: new WalSync(walPath) };
  } catch (error) {
    db.close();
    throw error;
  }
}
