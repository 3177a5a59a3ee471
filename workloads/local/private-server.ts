/**
 * What the private servers (PostgreSQL, MariaDB) share: the system user a server runs as when the
 * platform runs as root, the folder it keeps its files in (one its user can reach), and the port it
 * keeps across restarts.
 */
import { createHash } from 'node:crypto';
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
 * Where servers keep their files when their user cannot reach the platform's data dir (the
 * platform runs as root with its data dir under a folder only root may enter: a home directory
 * under /root, a `mktemp -d` folder). The platform makes it and owns it; each server's own folder
 * in it belongs to the server's user.
 */
export const SERVER_HOMES_DIR = '/var/lib/cloudplane/private-servers';

async function reachableBy(user: SystemUser, dir: string): Promise<boolean> {
  return runCommand('test', ['-x', dir], SERVER_UNAVAILABLE, { uid: user.uid, gid: user.gid }).then(
    () => true,
    () => false,
  );
}

/** `<homes>/<digest of dir>-<name>`: one home per server dir, so two platforms on a machine never share one. */
function outsideHome(dir: string): string {
  const digest = createHash('sha256').update(path.resolve(dir)).digest('hex').slice(0, 16);
  return path.join(SERVER_HOMES_DIR, `${digest}-${path.basename(dir)}`);
}

/**
 * Makes the folder a server keeps its files in and answers its path. Without a `user` (the platform
 * does not run as root) that is `dir`. With one, it is `dir` when the user can pass through the
 * folders above the data dir: the workloads dir and the data dir, which are the platform's, become
 * traversable by others (o+x), never listable. Otherwise the files go to a folder of the user's own
 * under SERVER_HOMES_DIR, and `dir` becomes a link to it, so the platform's data dir still shows where
 * they are. A `dir` that already holds the server's files (`dataMarker`) and that the user cannot
 * reach is named in the error, never moved.
 */
export async function prepareServerDir(
  dir: string,
  user: SystemUser | undefined,
  server: { userName: string; dataMarker: string },
): Promise<string> {
  if (!user) {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    return dir;
  }
  const workloadsDir = path.dirname(dir);
  const dataDir = path.dirname(workloadsDir);
  await fs.mkdir(workloadsDir, { recursive: true, mode: 0o700 });
  const linked = await fs.readlink(dir).catch(() => undefined);
  if (linked !== undefined) return ownHome(linked, user, server.userName);
  const holdsData = await exists(path.join(dir, server.dataMarker));
  if (holdsData || (await reachableBy(user, path.dirname(dataDir)))) {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    await fs.chown(dir, user.uid, user.gid);
    for (const own of [workloadsDir, dataDir]) {
      const { mode } = await fs.stat(own);
      if ((mode & 0o001) === 0) await fs.chmod(own, (mode & 0o7777) | 0o001);
    }
    if (await reachableBy(user, dir)) return dir;
    throw new WorkloadError(
      SERVER_UNAVAILABLE,
      `the ${server.userName} system user cannot reach ${dir}: every directory above the data dir must let ` +
        `others through (chmod o+x), or the data dir (CLOUDPLANE_DATA_DIR) must move to a folder they can`,
    );
  }
  // What an earlier start left without data (a port file, an empty folder) goes with the move.
  await fs.rm(dir, { recursive: true, force: true });
  const home = outsideHome(dir);
  await ownHome(home, user, server.userName);
  await fs.symlink(home, dir);
  return home;
}

/** The server's folder outside the data dir: the folders above it traversable, itself the user's. */
async function ownHome(home: string, user: SystemUser, userName: string): Promise<string> {
  const homesDir = path.dirname(home);
  await fs.mkdir(homesDir, { recursive: true, mode: 0o711 });
  const { mode } = await fs.stat(homesDir);
  if ((mode & 0o001) === 0) await fs.chmod(homesDir, (mode & 0o7777) | 0o001);
  await fs.mkdir(home, { recursive: true, mode: 0o700 });
  await fs.chown(home, user.uid, user.gid);
  if (await reachableBy(user, home)) return home;
  throw new WorkloadError(
    SERVER_UNAVAILABLE,
    `the ${userName} system user cannot reach ${home}: every directory above it must let others through (chmod o+x)`,
  );
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
