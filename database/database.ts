import { Kysely, sql, type Dialect } from 'kysely';
import type pg from 'pg';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { DatabaseOpenError } from './database-open-error.js';
import { migrateToLatest } from './migrate.js';
import { describePostgresUrl, openPostgresPool } from './postgres.js';
import type { DataPlane } from './schema.js';
import { openSqliteDialect } from './sqlite.js';

/** The data plane: records that never belong in a CR, on SQLite (embedded) or PostgreSQL (cluster). */
export interface Database {
  readonly kysely: Kysely<DataPlane>;
  readonly dialect: 'sqlite' | 'postgres';
  /** The PostgreSQL pool, for components that speak to PostgreSQL directly; undefined on SQLite. */
  readonly pgPool?: pg.Pool;
  /** Runs a trivial query; throws when the database is unreachable or closed. */
  ping(): Promise<void>;
  /** Connections currently open: the pool's size on PostgreSQL, 1 for an open SQLite file, 0 once closed. */
  activeConnections(): number;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** A `postgres://` or `postgresql://` URL selects PostgreSQL; anything else means SQLite. */
  url?: string | undefined;
  /** The SQLite file, shared with the embedded object store. */
  sqlitePath: string;
  logger: Logger;
  /** When given, `database_connections_active` follows `activeConnections()`. */
  metrics?: Metrics | undefined;
}

interface Backend {
  dialect: Dialect;
  name: Database['dialect'];
  /** Where the data lives, without credentials, for logs and errors. */
  location: string;
  pgPool?: pg.Pool;
  openConnections(): number;
}

function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url);
}

function postgresBackend(url: string, logger: Logger, onConnectionsChanged: () => void): Backend {
  const { pool, dialect } = openPostgresPool(url, logger, onConnectionsChanged);
  return {
    dialect,
    name: 'postgres',
    location: describePostgresUrl(url),
    pgPool: pool,
    openConnections: () => pool.totalCount,
  };
}

function sqliteBackend(sqlitePath: string): Backend {
  try {
    return {
      dialect: openSqliteDialect(sqlitePath),
      name: 'sqlite',
      location: sqlitePath,
      openConnections: () => 1,
    };
  } catch (error) {
    throw new DatabaseOpenError(`cannot open the SQLite database at ${sqlitePath}: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

/**
 * Connects and checks the connection, without touching the schema. The process uses `openDatabase`;
 * this is for tools that must only inspect.
 */
export async function connectDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const { url, sqlitePath, logger, metrics } = options;
  let closed = false;
  const backend = isPostgresUrl(url)
    ? postgresBackend(url, logger, () => reportConnections())
    : sqliteBackend(sqlitePath);
  const activeConnections = (): number => (closed ? 0 : backend.openConnections());
  const reportConnections = (): void => metrics?.databaseConnectionsActive.set(activeConnections());
  const kysely = new Kysely<DataPlane>({ dialect: backend.dialect });
  const database: Database = {
    kysely,
    dialect: backend.name,
    pgPool: backend.pgPool,
    async ping() {
      if (closed) throw new Error('the data-plane database is closed');
      await sql`select 1`.execute(kysely);
    },
    activeConnections,
    async close() {
      if (closed) return;
      closed = true;
      await kysely.destroy();
      reportConnections();
    },
  };
  try {
    await database.ping();
  } catch (error) {
    await database.close().catch(() => undefined);
    throw new DatabaseOpenError(
      `cannot reach the data-plane database at ${backend.location}: ${messageOf(error)}`,
      {
        cause: error,
      },
    );
  }
  reportConnections();
  logger.info({ database: backend.location, dialect: backend.name }, 'data-plane database connected');
  return database;
}

/**
 * Opens the data-plane database and applies pending migrations before returning. Throws
 * `DatabaseOpenError` (and leaves nothing open) when the database cannot be reached or a migration
 * fails. On SQLite, open one `Database` per file per process.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const database = await connectDatabase(options);
  try {
    await migrateToLatest(database.kysely as unknown as Kysely<unknown>, options.logger);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
