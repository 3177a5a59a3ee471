/**
 * MySQL databases on this machine: a user and a database per workload, on the server at
 * `mysqlAdminUrl` or on the platform's private MariaDB. The user is granted its own database
 * and nothing else.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import mysql from 'mysql2/promise';
import type { WorkloadsConfig } from '../../../config/workloads.js';
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
import { privateMariadb } from './private-mariadb.js';
import {
  advertisedHostOf,
  installedProgram,
  numericVersion,
  tenantAccess,
  tenantName,
  versionCovers,
} from '../sql-names.js';

/** A tenant cannot take more than a sixth of a default server's 151 connections. */
const USER_CONNECTION_LIMIT = 25;
const CONNECT_TIMEOUT_MS = 10_000;
const ACCESS_DENIED = 1045;
const UNKNOWN_THREAD = 1094;

/** The server the workloads live on, as the platform reaches it. */
interface AdminServer {
  pool: mysql.Pool;
  /** Where this machine reaches the server: login checks, the dump and the client. */
  host: string;
  port: number;
  /** The host clients are given. */
  advertisedHost: string;
  /** `10.11.19` */
  version: string;
  /** What the server is, as it says: `10.11.19-MariaDB`, or `8.0.36` for MySQL. */
  reportedVersion: string;
}

interface AdminLogin {
  host: string;
  port: number;
  user: string;
  password: string;
  database?: string;
}

/** How the engine logs in as administrator: from the configured URL or the private server. */
interface ServerSource {
  admin(): Promise<AdminLogin>;
  stop(): Promise<void>;
}

function configuredServer(adminUrl: string): ServerSource {
  const url = new URL(adminUrl);
  const login: AdminLogin = {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    ...(url.pathname.length > 1 ? { database: decodeURIComponent(url.pathname.slice(1)) } : {}),
  };
  return { admin: async () => login, stop: async () => undefined };
}

function privateServer(config: WorkloadsConfig, logger: Logger): ServerSource | undefined {
  const server = privateMariadb(path.join(config.dir, 'mariadb'), logger);
  return server && { admin: () => server.start(), stop: () => server.stop() };
}

interface ServerErrorFields {
  errno?: unknown;
  sqlState?: unknown;
}

/** Whether the server answered (an error number and a state) rather than the connection failing. */
function serverAnswered(error: unknown): error is Error & { errno: number; sqlState: string } {
  const fields = error as ServerErrorFields | undefined;
  return typeof fields?.errno === 'number' && typeof fields.sqlState === 'string';
}

/** The server's own words when it answered, "not reachable" when it did not. */
function workloadErrorOf(error: unknown, doing: string): WorkloadError {
  if (error instanceof WorkloadError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (!serverAnswered(error)) {
    return new WorkloadError('ServerUnreachable', `the MySQL server is not reachable: ${message}`, {
      cause: error,
    });
  }
  const reason =
    error.errno === ACCESS_DENIED
      ? 'AuthenticationFailed'
      : error.sqlState === '42000' && /denied/i.test(message)
        ? 'PermissionDenied'
        : 'ServerRefused';
  return new WorkloadError(reason, `the MySQL server refused to ${doing}: ${message}`, { cause: error });
}

/** A database name in GRANT, where `_` and `%` would otherwise match any character. */
function grantedDatabase(name: string): string {
  return `\`${name.replace(/[_%]/g, '\\$&')}\``;
}

function quoted(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

/** Logs in as the workload's user; the server's refusal, or undefined when it let the user in. */
async function loginRefusal(
  admin: AdminServer,
  user: string,
  password: string,
  database?: string,
): Promise<Error | undefined> {
  try {
    const connection = await mysql.createConnection({
      host: admin.host,
      port: admin.port,
      user,
      password,
      ...(database ? { database } : {}),
      connectTimeout: CONNECT_TIMEOUT_MS,
    });
    await connection.end();
    return undefined;
  } catch (error) {
    if (serverAnswered(error)) return error;
    throw error;
  }
}

/** `10.11.19-MariaDB-0+deb12u1` → `10.11.19-MariaDB`: the mysql engine says when it is MariaDB. */
function productVersion(reported: string): string {
  const numeric = numericVersion(reported);
  return /mariadb/i.test(reported) ? `${numeric}-MariaDB` : numeric;
}

function offered(workload: DatabaseWorkload, running: string): void {
  if (workload.version !== undefined && !versionCovers(workload.version, running)) {
    throw new WorkloadError(
      'UnsupportedVersion',
      `mysql ${workload.version} is not offered here; versions: ${running}`,
    );
  }
}

const noServer = () =>
  new WorkloadError(
    'ServerUnavailable',
    'no MySQL server: set CLOUDPLANE_MYSQL_ADMIN_URL or install mariadbd',
  );

function clientProgram(names: string[], reason: string): string {
  const program = installedProgram(names);
  if (!program) throw new WorkloadError(reason, `${names.join(' or ')} is not installed on this machine`);
  return program;
}

/** The client programs' arguments: no option file of the machine's, TCP to the server, the password in the environment. */
function clientArgs(admin: AdminServer, user: string): string[] {
  return [
    '--no-defaults',
    '--protocol=TCP',
    `--host=${admin.host}`,
    `--port=${admin.port}`,
    `--user=${user}`,
  ];
}

export function mysqlEngine({ config, logger }: LocalEngineOptions): LocalEngine {
  const source = config.mysqlAdminUrl
    ? configuredServer(config.mysqlAdminUrl)
    : privateServer(config, logger);
  let connecting: Promise<AdminServer> | undefined;

  async function connect(found: ServerSource): Promise<AdminServer> {
    const login = await found.admin();
    const pool = mysql.createPool({ ...login, connectionLimit: 4, connectTimeout: CONNECT_TIMEOUT_MS });
    try {
      const [rows] = await pool.query<mysql.RowDataPacket[]>('SELECT VERSION() AS version');
      return {
        pool,
        host: login.host,
        port: login.port,
        advertisedHost: advertisedHostOf(config.advertisedHost, login.host),
        version: numericVersion(String(rows[0]!.version)),
        reportedVersion: productVersion(String(rows[0]!.version)),
      };
    } catch (error) {
      await pool.end();
      throw error;
    }
  }

  /** The admin connection, made on first use; a failed attempt is forgotten so the next call tries again. */
  function server(): Promise<AdminServer> {
    if (!source) return Promise.reject(noServer());
    connecting ??= connect(source).catch((error: unknown) => {
      connecting = undefined;
      throw workloadErrorOf(error, 'let the platform in');
    });
    return connecting;
  }

  async function endSessions(admin: AdminServer, name: string): Promise<void> {
    const [sessions] = await admin.pool.query<mysql.RowDataPacket[]>(
      'SELECT ID AS id FROM information_schema.PROCESSLIST WHERE USER = ?',
      [name],
    );
    for (const { id } of sessions) {
      await admin.pool.query(`KILL CONNECTION ${Number(id)}`).catch((error: unknown) => {
        if ((error as ServerErrorFields).errno !== UNKNOWN_THREAD) throw error;
      });
    }
  }

  async function userExists(admin: AdminServer, name: string): Promise<boolean> {
    const [rows] = await admin.pool.query<mysql.RowDataPacket[]>(
      "SELECT 1 FROM mysql.user WHERE User = ? AND Host = '%'",
      [name],
    );
    return rows.length > 0;
  }

  async function databaseExists(admin: AdminServer, name: string): Promise<boolean> {
    const [rows] = await admin.pool.query<mysql.RowDataPacket[]>(
      'SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
      [name],
    );
    return rows.length > 0;
  }

  async function ensureUser(admin: AdminServer, name: string, password: string): Promise<boolean> {
    const limit = `WITH MAX_USER_CONNECTIONS ${USER_CONNECTION_LIMIT}`;
    if (!(await userExists(admin, name))) {
      await admin.pool.query(`CREATE USER ?@'%' IDENTIFIED BY ? ${limit}`, [name, password]);
      return true;
    }
    // The password is set again (and the sessions ended) unless it is shown to be the current one.
    if ((await loginRefusal(admin, name, password)) === undefined) {
      await admin.pool.query(`ALTER USER ?@'%' ${limit}`, [name]);
      return false;
    }
    await admin.pool.query(`ALTER USER ?@'%' IDENTIFIED BY ? ${limit}`, [name, password]);
    await endSessions(admin, name);
    logger.info({ database: name }, 'MySQL password changed; sessions with the old one ended');
    return false;
  }

  /** Removes what a failed `ensure` made, so that nothing half-made stays behind. */
  async function undo(
    admin: AdminServer,
    name: string,
    made: { user: boolean; database: boolean },
  ): Promise<void> {
    try {
      if (made.user) await admin.pool.query("DROP USER IF EXISTS ?@'%'", [name]);
      if (made.database) await admin.pool.query(`DROP DATABASE IF EXISTS ${quoted(name)}`);
    } catch (error) {
      logger.warn({ database: name, err: (error as Error).message }, 'could not undo a failed MySQL setup');
    }
  }

  function degraded(message: string, admin?: AdminServer): DatabaseObservation {
    return {
      realization: 'real',
      state: 'degraded',
      message,
      ...(admin ? { version: admin.reportedVersion } : {}),
    };
  }

  async function observeOn(
    admin: AdminServer,
    workload: DatabaseWorkload,
    password: string,
  ): Promise<DatabaseObservation> {
    const name = tenantName(workload.id);
    if (!(await userExists(admin, name)) || !(await databaseExists(admin, name))) {
      return degraded(`the user or the database of ${name} is missing on the server`, admin);
    }
    const refusal = await loginRefusal(admin, name, password, name);
    if (refusal)
      return degraded(`the database refuses the credentials it was given: ${refusal.message}`, admin);
    const [rows] = await admin.pool.query<mysql.RowDataPacket[]>(
      'SELECT COALESCE(SUM(DATA_LENGTH + INDEX_LENGTH), 0) AS size FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?',
      [name],
    );
    return {
      realization: 'real',
      state: 'ready',
      version: admin.reportedVersion,
      storageUsedBytes: Number(rows[0]!.size),
      access: tenantAccess('mysql', admin, name, password),
    };
  }

  return {
    async ensure(workload, password) {
      const admin = await server();
      offered(workload, admin.version);
      const name = tenantName(workload.id);
      const made = { user: false, database: false };
      try {
        if (!(await databaseExists(admin, name))) {
          await admin.pool.query(`CREATE DATABASE ${quoted(name)} CHARACTER SET utf8mb4`);
          made.database = true;
        }
        made.user = await ensureUser(admin, name, password);
        await admin.pool.query(`GRANT ALL PRIVILEGES ON ${grantedDatabase(name)}.* TO ?@'%'`, [name]);
        return await observeOn(admin, workload, password);
      } catch (error) {
        await undo(admin, name, made);
        throw workloadErrorOf(error, `set up ${name}`);
      }
    },

    async observe(workload, password) {
      if (!source) throw noServer();
      let admin: AdminServer | undefined;
      try {
        admin = await server();
        return await observeOn(admin, workload, password);
      } catch (error) {
        return degraded(workloadErrorOf(error, 'describe the database').message, admin);
      }
    },

    async remove(workload) {
      if (!source) {
        logger.warn({ database: workload.id }, 'no MySQL server is configured: nothing to remove');
        return;
      }
      const admin = await server();
      const name = tenantName(workload.id);
      try {
        // The user goes first, so that no new session starts while the database goes.
        await admin.pool.query("DROP USER IF EXISTS ?@'%'", [name]);
        await endSessions(admin, name);
        await admin.pool.query(`DROP DATABASE IF EXISTS ${quoted(name)}`);
      } catch (error) {
        throw workloadErrorOf(error, `remove ${name}`);
      }
      logger.info({ database: name }, 'MySQL database removed');
    },

    async backup(workload, password, backupId): Promise<BackupArtifact> {
      const admin = await server();
      const name = tenantName(workload.id);
      const dump = clientProgram(['mariadb-dump', 'mysqldump'], 'BackupFailed');
      const file = await backupFile(config, backupId, 'sql');
      const output = await fs.open(file, 'w', 0o600);
      try {
        await runCommand(
          dump,
          [
            ...clientArgs(admin, name),
            '--single-transaction',
            '--no-tablespaces',
            '--routines',
            '--events',
            name,
          ],
          'BackupFailed',
          { env: { MYSQL_PWD: password }, stdoutFd: output.fd },
        );
      } catch (error) {
        await output.close();
        await fs.rm(file, { force: true });
        throw error;
      }
      await output.close();
      return artifactOf(file);
    },

    async restore(artifact, target, password) {
      const admin = await server();
      const name = tenantName(target.id);
      const client = clientProgram(['mariadb', 'mysql'], 'RestoreFailed');
      const input = await fs.open(artifact.location, 'r').catch(() => {
        throw new WorkloadError('BackupMissing', 'the backup file is no longer there');
      });
      try {
        await runCommand(client, [...clientArgs(admin, name), '--batch', name], 'RestoreFailed', {
          env: { MYSQL_PWD: password },
          stdinFd: input.fd,
        });
      } finally {
        await input.close();
      }
      logger.info({ database: name }, 'MySQL backup restored');
    },

    async close() {
      const connected = connecting;
      connecting = undefined;
      const admin = await connected?.catch(() => undefined);
      await admin?.pool.end();
      await source?.stop();
    },
  };
}
