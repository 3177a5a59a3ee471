import pg from 'pg';
import { PostgresDialect, type Dialect } from 'kysely';
import type { Logger } from '../observability/logger.js';

/** An unreachable server fails start-up after this long instead of hanging. */
const CONNECT_TIMEOUT_MS = 10_000;

export interface PostgresConnection {
  pool: pg.Pool;
  dialect: Dialect;
}

/** The server and database a URL points at, without credentials, for logs and error messages. */
export function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `postgres://${parsed.host}${parsed.pathname}`;
  } catch {
    return 'postgres://(unparseable URL)';
  }
}

/** Statement texts sent as named statements, and their names. */
const statementNames = new Map<string, string>();

/**
 * Sends `text` as a named statement from now on: each connection has PostgreSQL parse and plan it
 * once, then only binds each call's values. For the few fixed texts run on every request
 * (`preparedQuery`): a name lives as long as the connection, so texts that vary must not get one.
 */
export function nameStatement(text: string): void {
  if (!statementNames.has(text)) statementNames.set(text, `cloudplane_${statementNames.size + 1}`);
}

/**
 * A pool for the URL. `onConnectionsChanged` fires whenever the pool opens or closes a connection;
 * `onQuery` for every statement any of its connections sends, whoever sends it.
 */
export function openPostgresPool(
  url: string,
  logger: Logger,
  onConnectionsChanged: () => void,
  onQuery: () => void,
): PostgresConnection {
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  pool.on('connect', (client) => {
    const query = client.query;
    client.query = function (this: pg.PoolClient, ...args: unknown[]) {
      onQuery();
      const [text, values, ...rest] = args;
      const name = typeof text === 'string' ? statementNames.get(text) : undefined;
      return Reflect.apply(query, this, name ? [{ name, text, values }, ...rest] : args) as unknown;
    } as typeof client.query;
  });
  // Without a listener, an idle connection dropped by the server would crash the process.
  pool.on('error', (error) => {
    logger.error({ err: error, database: describePostgresUrl(url) }, 'idle PostgreSQL connection failed');
  });
  pool.on('connect', onConnectionsChanged);
  pool.on('remove', onConnectionsChanged);
  return { pool, dialect: new PostgresDialect({ pool }) };
}
