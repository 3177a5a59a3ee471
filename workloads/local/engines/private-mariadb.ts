/**
 * The MariaDB server the platform runs itself when no admin URL is configured and `mariadbd` is
 * installed: its files under `<workloads dir>/mariadb`, listening on 127.0.0.1 only, reading no
 * option file of the machine's. It runs detached from this process, so a server an earlier
 * process left running is adopted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import mysql from 'mysql2/promise';
import type { Logger } from '../../../observability/logger.js';
import { WorkloadError } from '../../runtime.js';
import { runCommand } from '../commands.js';
import {
  exists,
  isAlive,
  pause,
  prepareServerDir,
  rememberedPort,
  type SystemUser,
  type PrivateServer,
  type ServerLogin,
} from '../private-server.js';
import { installedProgram } from '../sql-names.js';

export type MariadbAdmin = ServerLogin;
export type PrivateMariadb = PrivateServer;

const ADMIN_USER = 'cloudplane';
const HOST = '127.0.0.1';
const UNAVAILABLE = 'ServerUnavailable';
const START_TIMEOUT_MS = 60_000;

interface Programs {
  mariadbd: string;
  installDb: string;
}

/** The server's programs, or undefined when this machine has no MariaDB server installed. */
function installedPrograms(): Programs | undefined {
  const mariadbd = installedProgram(['mariadbd']);
  const installDb = installedProgram(['mariadb-install-db', 'mysql_install_db']);
  return mariadbd && installDb ? { mariadbd, installDb } : undefined;
}

/** Run as root, `mariadbd` drops to the `mysql` system user the MariaDB packages make. */
async function serverUser(): Promise<SystemUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const [uid, gid] = await Promise.all([
      runCommand('id', ['-u', 'mysql'], UNAVAILABLE),
      runCommand('id', ['-g', 'mysql'], UNAVAILABLE),
    ]);
    return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
  } catch {
    throw new WorkloadError(UNAVAILABLE, 'mariadbd cannot run as root and there is no mysql system user');
  }
}

async function adminAnswers(admin: MariadbAdmin): Promise<boolean> {
  try {
    const connection = await mysql.createConnection({ ...admin, connectTimeout: 2_000 });
    await connection.end();
    return true;
  } catch {
    return false;
  }
}

/** A private server when `mariadbd` is installed here; undefined when it is not. */
export function privateMariadb(dir: string, logger: Logger): PrivateMariadb | undefined {
  const programs = installedPrograms();
  if (!programs) return undefined;
  // Known once prepared: `dir`, or the folder outside the data dir its user can reach.
  let home = dir;
  const dataDir = () => path.join(home, 'data');
  const passwordFile = () => path.join(home, 'admin-password');
  const pidFile = () => path.join(home, 'mariadbd.pid');
  const errorLog = () => path.join(home, 'mariadbd.err');
  let running: Promise<MariadbAdmin> | undefined;
  let child: ChildProcess | undefined;
  let user: SystemUser | undefined;

  const asUser = () => (user ? ['--user=mysql'] : []);

  async function prepareDir(): Promise<void> {
    user = await serverUser();
    home = await prepareServerDir(dir, user, { userName: 'mysql', dataMarker: 'data/mysql' });
  }

  async function initialise(): Promise<string> {
    const password = randomBytes(24).toString('base64url');
    await fs.rm(dataDir(), { recursive: true, force: true });
    await fs.writeFile(passwordFile(), password, { mode: 0o600 });
    // The administrator is made while the data directory is made, so no moment exists without a password.
    const setupFile = path.join(home, 'admin-setup.sql');
    await fs.writeFile(
      setupFile,
      `FLUSH PRIVILEGES;\n` +
        `CREATE USER '${ADMIN_USER}'@'${HOST}' IDENTIFIED BY '${password}';\n` +
        `GRANT ALL PRIVILEGES ON *.* TO '${ADMIN_USER}'@'${HOST}' WITH GRANT OPTION;\n`,
      { mode: 0o600 },
    );
    try {
      await runCommand(
        programs!.installDb,
        [
          '--no-defaults',
          `--datadir=${dataDir()}`,
          '--auth-root-authentication-method=socket',
          '--skip-test-db',
          '--skip-name-resolve',
          `--extra-file=${setupFile}`,
          ...asUser(),
        ],
        UNAVAILABLE,
        { cwd: home },
      );
    } finally {
      await fs.rm(setupFile, { force: true });
    }
    logger.info({ dir: home }, 'private MariaDB initialised');
    return password;
  }

  async function runningPid(): Promise<number | undefined> {
    const saved = await fs.readFile(pidFile(), 'utf8').catch(() => undefined);
    const pid = Number(saved?.trim());
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
  }

  async function errorLogTail(): Promise<string> {
    const log = await fs.readFile(errorLog(), 'utf8').catch(() => '');
    return log.trim().split('\n').slice(-3).join(' ');
  }

  async function startServer(admin: MariadbAdmin): Promise<void> {
    const server = spawn(
      programs!.mariadbd,
      [
        '--no-defaults',
        `--datadir=${dataDir()}`,
        `--port=${admin.port}`,
        `--bind-address=${HOST}`,
        `--socket=${path.join(home, 'mariadbd.sock')}`,
        `--pid-file=${pidFile()}`,
        `--log-error=${errorLog()}`,
        '--skip-name-resolve',
        '--character-set-server=utf8mb4',
        ...asUser(),
      ],
      { cwd: home, detached: true, stdio: 'ignore' },
    );
    server.unref();
    child = server;
    let exited = false;
    server.on('exit', () => (exited = true));
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await adminAnswers(admin))) {
      if (exited || Date.now() > deadline) {
        if (!exited) server.kill('SIGKILL');
        throw new WorkloadError(UNAVAILABLE, `the private MariaDB did not start: ${await errorLogTail()}`);
      }
      await pause(200);
    }
    logger.info({ dir: home, port: admin.port }, 'private MariaDB started');
  }

  async function launch(): Promise<MariadbAdmin> {
    await prepareDir();
    const port = await rememberedPort(path.join(home, 'port'));
    const password = (await exists(path.join(dataDir(), 'mysql')))
      ? (await fs.readFile(passwordFile(), 'utf8')).trim()
      : await initialise();
    const admin = { host: HOST, port, user: ADMIN_USER, password };
    if ((await runningPid()) !== undefined && (await adminAnswers(admin))) {
      logger.info({ dir: home, port }, 'private MariaDB already running; adopted');
    } else {
      await startServer(admin);
    }
    return admin;
  }

  async function stopServer(): Promise<void> {
    const pid = (await runningPid()) ?? (child?.exitCode === null ? child.pid : undefined);
    child = undefined;
    if (pid === undefined || !isAlive(pid)) return;
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (isAlive(pid) && Date.now() < deadline) await pause(100);
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    logger.info({ dir: home }, 'private MariaDB stopped');
  }

  return {
    start() {
      running ??= launch().catch((error: unknown) => {
        running = undefined;
        throw error instanceof WorkloadError
          ? error
          : new WorkloadError(
              UNAVAILABLE,
              `the private MariaDB did not start: ${error instanceof Error ? error.message : String(error)}`,
              { cause: error },
            );
      });
      return running;
    },
    async stop() {
      const started = running;
      running = undefined;
      if (!started || !(await started.then(() => true).catch(() => false))) return;
      await stopServer();
    },
  };
}
