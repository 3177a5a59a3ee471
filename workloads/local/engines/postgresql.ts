/**
 * PostgreSQL databases on this machine: a role and a database per workload, on the server at
 * `postgresAdminUrl` or on the platform's private server of the major asked for (one per major,
 * started on first use). Only the workload's own role may connect to its database; passwords
 * reach the server as SCRAM verifiers, so the server's statement logs never hold one.
 */
import { createHash, createHmac, pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { WorkloadsConfig } from '../../../config/workloads.js';
import { offeredVersions } from '../../../crds/database-engines/index.js';
import { postgresql } from '../../../crds/database-engines/postgresql.js';
import type { Logger } from '../../../observability/logger.js';
import {
  WorkloadError,
  type BackupArtifact,
  type DatabaseObservation,
  type DatabaseWorkload,
} from '../../runtime.js';
import { artifactOf, backupFile } from '../backup-files.js';
import { runCommand } from '../commands.js';
import type { LocalEngine, LocalEngineOptions } from '../engine.js';
import { privatePostgres } from './private-postgres.js';
import {
  advertisedHostOf,
  installedProgram,
  numericVersion,
  tenantAccess,
  tenantName,
} from '../sql-names.js';

/** A tenant cannot take more than a quarter of a default server's 100 connections. */
const ROLE_CONNECTION_LIMIT = 25;
const SCRAM_ITERATIONS = 4096;
const CONNECT_TIMEOUT_MS = 10_000;

const pbkdf2Async = promisify(pbkdf2);

/** The server the workloads live on, as the platform reaches it. */
interface AdminServer {
  pool: pg.Pool;
  /** Where this machine reaches the server: login checks, `pg_dump`, `pg_restore`. */
  host: string;
  port: number;
  /** The host clients are given. */
  advertisedHost: string;
  /** `15.18` */
  version: string;
  /** Known once a wrong password was refused; a server that trusts this host keeps no tenant apart. */
  passwordsChecked: boolean;
}

/** How the engine logs in as administrator: from the configured URL or the private server. */
interface ServerSource {
  admin(): Promise<{ pool: pg.PoolConfig; host: string; port: number; passwordsChecked: boolean }>;
  stop(): Promise<void>;
}

function configuredServer(adminUrl: string): ServerSource {
  const url = new URL(adminUrl);
  return {
    admin: async () => ({
      pool: { connectionString: adminUrl },
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: Number(url.port || 5432),
      passwordsChecked: false,
    }),
    stop: async () => undefined,
  };
}

/**
 * The folder of a major's private server: `postgresql-<major>`, but the one server of earlier
 * versions of the platform, `postgresql` (a 15), keeps its folder and its databases.
 */
async function privateServerDir(config: WorkloadsConfig, major: string): Promise<string> {
  const earlier = path.join(config.dir, 'postgresql');
  const version = await fs.readFile(path.join(earlier, 'data', 'PG_VERSION'), 'utf8').catch(() => undefined);
  return version?.trim() === major ? earlier : path.join(config.dir, `postgresql-${major}`);
}

function privateServer(config: WorkloadsConfig, major: string, logger: Logger): ServerSource {
  let server: ReturnType<typeof privatePostgres> | undefined;
  return {
    async admin() {
      server ??= privatePostgres(await privateServerDir(config, major), major, logger);
      const superuser = await server.start();
      // The private server is made with scram-sha-256 for every connection.
      return { pool: { ...superuser, database: 'postgres' }, ...superuser, passwordsChecked: true };
    },
    stop: async () => server?.stop(),
  };
}

/** The server's own words when it answered, "not reachable" when it did not. */
function workloadErrorOf(error: unknown, doing: string): WorkloadError {
  if (error instanceof WorkloadError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof pg.DatabaseError)) {
    return new WorkloadError('ServerUnreachable', `the PostgreSQL server is not reachable: ${message}`, {
      cause: error,
    });
  }
  const reason = error.code?.startsWith('28')
    ? 'AuthenticationFailed'
    : error.code === '42501'
      ? 'PermissionDenied'
      : 'ServerRefused';
  return new WorkloadError(reason, `the PostgreSQL server refused to ${doing}: ${message}`, { cause: error });
}

async function scramKeys(
  password: string,
  salt: Buffer,
  iterations: number,
): Promise<{ storedKey: Buffer; serverKey: Buffer }> {
  // SASLprep, which the server and libpq apply, is NFKC for all but unusual characters.
  const salted = await pbkdf2Async(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  return {
    storedKey: createHash('sha256').update(clientKey).digest(),
    serverKey: createHmac('sha256', salted).update('Server Key').digest(),
  };
}

/** What `PASSWORD '…'` stores for `password` (RFC 5803), made here so the password stays here. */
async function scramVerifier(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { storedKey, serverKey } = await scramKeys(password, salt, SCRAM_ITERATIONS);
  const b64 = (bytes: Buffer) => bytes.toString('base64');
  return `SCRAM-SHA-256$${SCRAM_ITERATIONS}:${b64(salt)}$${b64(storedKey)}:${b64(serverKey)}`;
}

async function verifierMatches(stored: string, password: string): Promise<boolean> {
  const parts = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):(.+)$/.exec(stored);
  if (!parts) return false;
  const [, iterations, salt, storedKey, serverKey] = parts as unknown as [
    string,
    string,
    string,
    string,
    string,
  ];
  const keys = await scramKeys(password, Buffer.from(salt, 'base64'), Number(iterations));
  const same = (expected: Buffer, actual: string) => {
    const bytes = Buffer.from(actual, 'base64');
    return bytes.length === expected.length && timingSafeEqual(bytes, expected);
  };
  return same(keys.storedKey, storedKey) && same(keys.serverKey, serverKey);
}

/** Logs in as the workload's role; the server's refusal, or undefined when it let the role in. */
async function loginRefusal(
  server: AdminServer,
  role: string,
  password: string,
): Promise<pg.DatabaseError | undefined> {
  const client = new pg.Client({
    host: server.host,
    port: server.port,
    user: role,
    password,
    database: role,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    if (error instanceof pg.DatabaseError) return error;
    throw error;
  }
  await client.end();
  return undefined;
}

const majorOf = (version: string): string => version.split('.')[0]!;

/** The client-program environment: the password travels there, never in the arguments. */
function clientEnv(password: string): Record<string, string> {
  return { PGPASSWORD: password, PGCONNECT_TIMEOUT: String(CONNECT_TIMEOUT_MS / 1000) };
}

/** `pg_dump` or `pg_restore` of the server's major version when installed side by side, else the default one. */
function clientProgram(name: 'pg_dump' | 'pg_restore', version: string, reason: string): string {
  const program = installedProgram([name], [`/usr/lib/postgresql/${version.split('.')[0]}/bin`]);
  if (!program) throw new WorkloadError(reason, `${name} is not installed on this machine`);
  return program;
}

/** One server's admin connection, made on first use; a failed attempt is forgotten so the next call tries again. */
interface ServerConnection {
  server(): Promise<AdminServer>;
  close(): Promise<void>;
}

export function postgresqlEngine({ config, logger }: LocalEngineOptions): LocalEngine {
  const configured = config.postgresAdminUrl
    ? connection(configuredServer(config.postgresAdminUrl))
    : undefined;
  const privateServers = new Map<string, ServerConnection>();
  const defaultMajor = postgresql.defaultVersion;

  async function connect(source: ServerSource): Promise<AdminServer> {
    const admin = await source.admin();
    const pool = new pg.Pool({ ...admin.pool, max: 4, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    pool.on('error', (error) => logger.warn({ err: error.message }, 'PostgreSQL admin connection lost'));
    try {
      const { rows } = await pool.query<{ server_version: string }>('SHOW server_version');
      return {
        pool,
        host: admin.host,
        port: admin.port,
        advertisedHost: advertisedHostOf(config.advertisedHost, admin.host),
        version: numericVersion(rows[0]!.server_version),
        passwordsChecked: admin.passwordsChecked,
      };
    } catch (error) {
      await pool.end();
      throw error;
    }
  }

  function connection(source: ServerSource): ServerConnection {
    let connecting: Promise<AdminServer> | undefined;
    return {
      server() {
        connecting ??= connect(source).catch((error: unknown) => {
          connecting = undefined;
          throw workloadErrorOf(error, 'let the platform in');
        });
        return connecting;
      },
      async close() {
        const connected = connecting;
        connecting = undefined;
        const admin = await connected?.catch(() => undefined);
        await admin?.pool.end();
        await source.stop();
      },
    };
  }

  function privateConnection(major: string): ServerConnection {
    let found = privateServers.get(major);
    if (!found) {
      found = connection(privateServer(config, major, logger));
      privateServers.set(major, found);
    }
    return found;
  }

  /**
   * The server a workload's database lives on. Without a version: the admin URL's server, else
   * the private server of the default major. With one: the admin URL's server when it runs that
   * major, else the private server of that major.
   */
  async function server(workload: DatabaseWorkload): Promise<AdminServer> {
    const asked = workload.version;
    if (asked !== undefined && !offeredVersions('postgresql').includes(asked)) {
      throw new WorkloadError(
        'UnsupportedVersion',
        `postgresql ${asked} is not offered; versions: ${offeredVersions('postgresql').join(', ')}`,
      );
    }
    if (configured) {
      const admin = await configured.server();
      if (asked === undefined || majorOf(admin.version) === asked) return admin;
    }
    return privateConnection(asked ?? defaultMajor).server();
  }

  async function endSessions(pool: pg.Pool, name: string): Promise<void> {
    await pool.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1 OR datname = $1',
      [name],
    );
  }

  async function ensureRole(admin: AdminServer, name: string, password: string): Promise<boolean> {
    const role = pg.escapeIdentifier(name);
    const settings = `LOGIN CONNECTION LIMIT ${ROLE_CONNECTION_LIMIT}`;
    const { rows } = await admin.pool.query<{ rolpassword: string | null }>(
      'SELECT rolpassword FROM pg_authid WHERE rolname = $1',
      [name],
    );
    const stored = rows[0];
    if (!stored) {
      await admin.pool.query(
        `CREATE ROLE ${role} ${settings} PASSWORD ${pg.escapeLiteral(await scramVerifier(password))}`,
      );
      return true;
    }
    if (stored.rolpassword !== null && (await verifierMatches(stored.rolpassword, password))) {
      await admin.pool.query(`ALTER ROLE ${role} ${settings}`);
      return false;
    }
    await admin.pool.query(
      `ALTER ROLE ${role} ${settings} PASSWORD ${pg.escapeLiteral(await scramVerifier(password))}`,
    );
    // A new password ends the sessions opened with the old one.
    await admin.pool.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [
      name,
    ]);
    logger.info({ database: name }, 'PostgreSQL password changed; sessions with the old one ended');
    return false;
  }

  async function ensureDatabase(admin: AdminServer, name: string): Promise<boolean> {
    const database = pg.escapeIdentifier(name);
    const { rowCount } = await admin.pool.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    const created = rowCount === 0;
    if (created) await admin.pool.query(`CREATE DATABASE ${database} OWNER ${database}`);
    else await admin.pool.query(`ALTER DATABASE ${database} OWNER TO ${database}`);
    await admin.pool.query(`REVOKE ALL ON DATABASE ${database} FROM PUBLIC`);
    return created;
  }

  /** Removes what a failed `ensure` made, so that nothing half-made stays behind. */
  async function undo(
    admin: AdminServer,
    name: string,
    made: { role: boolean; database: boolean },
  ): Promise<void> {
    try {
      if (made.database)
        await admin.pool.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
      if (made.role) await admin.pool.query(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(name)}`);
    } catch (error) {
      logger.warn(
        { database: name, err: (error as Error).message },
        'could not undo a failed PostgreSQL setup',
      );
    }
  }

  function degraded(message: string, admin?: AdminServer): DatabaseObservation {
    return { realization: 'real', state: 'degraded', message, ...(admin ? { version: admin.version } : {}) };
  }

  async function observeOn(
    admin: AdminServer,
    workload: DatabaseWorkload,
    password: string,
  ): Promise<DatabaseObservation> {
    const name = tenantName(workload.id);
    const { rows } = await admin.pool.query<{ role: boolean; size: string | null }>(
      `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1) AS role,
              (SELECT pg_database_size(datname) FROM pg_database WHERE datname = $1) AS size`,
      [name],
    );
    const { role, size } = rows[0]!;
    if (!role || size === null) {
      return degraded(`the role or the database of ${name} is missing on the server`, admin);
    }
    const refusal = await loginRefusal(admin, name, password);
    if (refusal)
      return degraded(`the database refuses the credentials it was given: ${refusal.message}`, admin);
    if (!admin.passwordsChecked) {
      const wrong = await loginRefusal(admin, name, randomBytes(18).toString('base64url'));
      admin.passwordsChecked = wrong !== undefined;
      if (!wrong) {
        return degraded(
          `the PostgreSQL server at ${admin.host}:${admin.port} lets any password in from this machine (its pg_hba.conf trusts it), ` +
            'so a database password there protects nothing: set CLOUDPLANE_POSTGRES_ADMIN_URL to a server that checks passwords',
          admin,
        );
      }
    }
    return {
      realization: 'real',
      state: 'ready',
      version: admin.version,
      storageUsedBytes: Number(size),
      access: tenantAccess('postgresql', admin, name, password),
    };
  }

  return {
    async ensure(workload, password) {
      const admin = await server(workload);
      const name = tenantName(workload.id);
      const made = { role: false, database: false };
      try {
        made.role = await ensureRole(admin, name, password);
        made.database = await ensureDatabase(admin, name);
        return await observeOn(admin, workload, password);
      } catch (error) {
        await undo(admin, name, made);
        throw workloadErrorOf(error, `set up ${name}`);
      }
    },

    async observe(workload, password) {
      let admin: AdminServer | undefined;
      try {
        admin = await server(workload);
        return await observeOn(admin, workload, password);
      } catch (error) {
        return degraded(workloadErrorOf(error, 'describe the database').message, admin);
      }
    },

    async remove(workload) {
      const admin = await server(workload);
      const name = tenantName(workload.id);
      const quoted = pg.escapeIdentifier(name);
      try {
        const { rowCount } = await admin.pool.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [name]);
        // No new session may start while the database goes.
        if (rowCount) await admin.pool.query(`ALTER ROLE ${quoted} NOLOGIN`);
        await endSessions(admin.pool, name);
        await admin.pool.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
        await admin.pool.query(`DROP ROLE IF EXISTS ${quoted}`);
      } catch (error) {
        throw workloadErrorOf(error, `remove ${name}`);
      }
      logger.info({ database: name }, 'PostgreSQL database removed');
    },

    async backup(workload, password, backupId): Promise<BackupArtifact> {
      const admin = await server(workload);
      const name = tenantName(workload.id);
      const file = await backupFile(config, backupId, 'dump');
      const pgDump = clientProgram('pg_dump', admin.version, 'BackupFailed');
      try {
        await runCommand(
          pgDump,
          [
            '--format=custom',
            '--no-password',
            `--host=${admin.host}`,
            `--port=${admin.port}`,
            `--username=${name}`,
            `--dbname=${name}`,
            `--file=${file}`,
          ],
          'BackupFailed',
          { env: clientEnv(password) },
        );
      } catch (error) {
        await fs.rm(file, { force: true });
        throw error;
      }
      return artifactOf(file);
    },

    async restore(artifact, target, password) {
      const admin = await server(target);
      const name = tenantName(target.id);
      if (
        !(await fs.stat(artifact.location).then(
          (stat) => stat.isFile(),
          () => false,
        ))
      ) {
        throw new WorkloadError('BackupMissing', 'the backup file is no longer there');
      }
      await runCommand(
        clientProgram('pg_restore', admin.version, 'RestoreFailed'),
        [
          '--no-owner',
          '--no-privileges',
          `--role=${name}`,
          '--clean',
          '--if-exists',
          '--single-transaction',
          '--exit-on-error',
          '--no-password',
          `--host=${admin.host}`,
          `--port=${admin.port}`,
          `--username=${name}`,
          `--dbname=${name}`,
          artifact.location,
        ],
        'RestoreFailed',
        { env: clientEnv(password) },
      );
      logger.info({ database: name }, 'PostgreSQL backup restored');
    },

    async close() {
      await Promise.all([configured, ...privateServers.values()].map((opened) => opened?.close()));
    },
  };
}
