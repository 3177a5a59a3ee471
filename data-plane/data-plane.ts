import { Kysely, sql, type Dialect } from 'kysely';
import type pg from 'pg';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { DataPlaneOpenError } from './data-plane-open-error.js';
import { migrateToLatest } from './migrate.js';
import { describePostgresUrl, openPostgresPool } from './postgres.js';
import type { DataPlaneSchema } from './schema.js';
import { readDirectly, type DirectRead } from './prepared-query.js';
import { openSqliteDialect } from './sqlite.js';

/** The data plane: records that never belong in a CR, on SQLite (embedded) or PostgreSQL (cluster). */
export interface DataPlane {
  readonly kysely: Kysely<DataPlaneSchema>;
  readonly dialect: 'sqlite' | 'postgres';
  /** The PostgreSQL pool, for components that speak to PostgreSQL directly; undefined on SQLite. */
  readonly pgPool?: pg.Pool;
  /** Runs a trivial query; throws when the database is unreachable or closed. */
  ping(): Promise<void>;
  /** Connections currently open: the pool's size on PostgreSQL, 1 for an open SQLite file, 0 once closed. */
  activeConnections(): number;
  /**
   * A number that moves whenever something may have been committed since it was last taken, or
   * undefined where no such number is cheap (PostgreSQL: other replicas commit unseen). On SQLite
   * it moves with this process's commits at once and with other processes' within a turn of the
   * event loop. A cache of a data-plane read takes it before reading and keeps its answer while it
   * stays.
   */
  commitMark(): number | undefined;
  close(): Promise<void>;
}

export interface OpenDataPlaneOptions {
  /** A `postgres://` or `postgresql://` URL selects PostgreSQL; anything else means SQLite. */
  url?: string | undefined;
  /** The SQLite file of the data plane; the embedded object store keeps a file of its own. */
  sqlitePath: string;
  logger: Logger;
  /** When given, `database_connections_active` follows `activeConnections()`. */
  metrics?: Metrics | undefined;
}

interface Backend {
  dialect: Dialect;
  name: DataPlane['dialect'];
  /** Where the data lives, without credentials, for logs and errors. */
  location: string;
  pgPool?: pg.Pool;
  openConnections(): number;
  commitMark(): number | undefined;
  /** Reads prepared queries may take instead of Kysely's executor (SQLite's, see `readDirectly`). */
  readNow?: DirectRead;
}

function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//i.test(url);
}

function postgresBackend(
  url: string,
  logger: Logger,
  onConnectionsChanged: () => void,
  onQuery: () => void,
): Backend {
  const { pool, dialect } = openPostgresPool(url, logger, onConnectionsChanged, onQuery);
  return {
    dialect,
    name: 'postgres',
    location: describePostgresUrl(url),
    pgPool: pool,
    openConnections: () => pool.totalCount,
    commitMark: () => undefined,
  };
}

function sqliteBackend(sqlitePath: string): Backend {
  try {
    const { dialect, commitMark, readNow } = openSqliteDialect(sqlitePath);
    return {
      dialect,
      name: 'sqlite',
      location: sqlitePath,
      openConnections: () => 1,
      commitMark: () => commitMark.current(),
      readNow,
    };
  } catch (error) {
    throw new DataPlaneOpenError(`cannot open the SQLite database at ${sqlitePath}: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

/**
 * Connects and checks the connection, without touching the schema. The process uses `openDataPlane`;
 * this is for tools that must only inspect.
 */
export async function connectDataPlane(options: OpenDataPlaneOptions): Promise<DataPlane> {
  const { url, sqlitePath, logger, metrics } = options;
  let closed = false;
  const backend = isPostgresUrl(url)
    ? postgresBackend(
        url,
        logger,
        () => reportConnections(),
        () => metrics?.databaseQueriesTotal.inc(),
      )
    : sqliteBackend(sqlitePath);
  const activeConnections = (): number => (closed ? 0 : backend.openConnections());
  const reportConnections = (): void => metrics?.databaseConnectionsActive.set(activeConnections());
  const kysely = new Kysely<DataPlaneSchema>({ dialect: backend.dialect });
  if (backend.readNow) readDirectly(kysely, backend.readNow);
  const database: DataPlane = {
    kysely,
    dialect: backend.name,
    pgPool: backend.pgPool,
    async ping() {
      if (closed) throw new Error('the data-plane database is closed');
      await sql`select 1`.execute(kysely);
    },
    activeConnections,
    commitMark: backend.commitMark,
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
    throw new DataPlaneOpenError(
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
 * `DataPlaneOpenError` (and leaves nothing open) when the database cannot be reached or a migration
 * fails. On SQLite, open one `DataPlane` per file per process.
 */
export async function openDataPlane(options: OpenDataPlaneOptions): Promise<DataPlane> {
  const database = await connectDataPlane(options);
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
