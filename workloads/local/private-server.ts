/**
 * What the private servers (PostgreSQL, MariaDB) share: the system user a server runs as when the
 * platform runs as root, the directory it may reach, and the port it keeps across restarts.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { runCommand } from './commands.js';
import { WorkloadError } from '../runtime.js';

export const SERVER_UNAVAILABLE = 'ServerUnavailable';
const HOST = '127.0.0.1';

/** How the platform logs in to one of its private servers. */
export interface ServerLogin {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** A private server: initialised on first use, the same login until `stop`. */
export interface PrivateServer {
  start(): Promise<ServerLogin>;
  /** Stops the server if `start` brought it up (or adopted it). */
  stop(): Promise<void>;
}

export interface SystemUser {
  uid: number;
  gid: number;
}

export async function systemUserIds(name: string): Promise<SystemUser | undefined> {
  try {
    const [uid, gid] = await Promise.all([
      runCommand('id', ['-u', name], SERVER_UNAVAILABLE),
      runCommand('id', ['-g', name], SERVER_UNAVAILABLE),
    ]);
    return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
  } catch {
    return undefined;
  }
}

export async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/**
 * Makes `dir` the server's own. Its user must pass through the workloads dir and the data dir
 * above it, which are the platform's: they become traversable by others (o+x), never listable.
 * A directory above the data dir that still blocks it is named in the error.
 */
export async function prepareServerDir(
  dir: string,
  user: SystemUser | undefined,
  userName: string,
): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  if (!user) return;
  await fs.chown(dir, user.uid, user.gid);
  const workloadsDir = path.dirname(dir);
  for (const own of [workloadsDir, path.dirname(workloadsDir)]) {
    const { mode } = await fs.stat(own);
    if ((mode & 0o001) === 0) await fs.chmod(own, (mode & 0o7777) | 0o001);
  }
  await runCommand('test', ['-x', dir], SERVER_UNAVAILABLE, { uid: user.uid, gid: user.gid }).catch(() => {
    throw new WorkloadError(
      SERVER_UNAVAILABLE,
      `the ${userName} system user cannot reach ${dir}: every directory above the data dir must let others through (chmod o+x)`,
    );
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The port chosen the first time, so that endpoints handed out stay right across restarts. */
export async function rememberedPort(file: string): Promise<number> {
  const saved = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (saved === undefined) {
    const port = await freePort();
    await fs.writeFile(file, `${port}\n`);
    return port;
  }
  const port = Number(saved.trim());
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new WorkloadError(SERVER_UNAVAILABLE, `${file} does not hold a port number`);
  }
  return port;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
