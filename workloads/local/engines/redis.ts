/**
 * Redis on this machine: one supervised `redis-server` per database, each in its own directory
 * with its own port, memory limit and password. The tenant is the server's `default` user and may
 * do anything to its data but change the server; the platform manages it as a second user whose
 * secret only the database's directory holds, since rotation must work without the old password.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from '../../../observability/logger.js';
import {
  WorkloadError,
  type BackupArtifact,
  type DatabaseAccess,
  type DatabaseObservation,
  type DatabaseWorkload,
} from '../../runtime.js';
import { artifactOf, backupFile } from '../backup-files.js';
import { runCommand } from '../commands.js';
import type { LocalEngine, LocalEngineOptions } from '../engine.js';
import { PortPool } from '../port-pool.js';
import { REDIS_SERVER, RedisSupervisor, type RedisProcessSpec } from './redis-supervisor.js';

const TENANT_USER = 'default';
const ADMIN_USER = 'cloudplane';
/** The memory a database gets when its workload names none, in MiB. */
const DEFAULT_MEMORY_MB = 64;
const ANSWER_TIMEOUT_MS = 20_000;
/** A server that died this many times in a row while starting will not start by waiting longer. */
const STARTS_BEFORE_GIVING_UP = 3;
/** A snapshot or an append-only rewrite takes as long as the data is big. */
const WRITE_TIMEOUT_MS = 60 * 60_000;
const POLL_MS = 50;
/** What every RDB file starts with. */
const RDB_MAGIC = 'REDIS';
/** Where Redis 7 keeps its append-only files; their manifest says they are complete. */
const AOF_MANIFEST = path.join('appendonlydir', 'appendonly.aof.manifest');

interface RedisFiles extends RedisProcessSpec {
  dir: string;
  portFile: string;
  adminFile: string;
  dumpFile: string;
}

function filesOf(root: string, id: string): RedisFiles {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(id)) {
    throw new WorkloadError('InvalidName', `${JSON.stringify(id)} is not a database id`);
  }
  const dir = path.join(root, 'redis', id);
  const dataDir = path.join(dir, 'data');
  return {
    id,
    dir,
    dataDir,
    confFile: path.join(dir, 'redis.conf'),
    pidFile: path.join(dir, 'redis.pid'),
    portFile: path.join(dir, 'port'),
    adminFile: path.join(dir, 'admin.secret'),
    dumpFile: path.join(dataDir, 'dump.rdb'),
  };
}

const exists = (file: string): Promise<boolean> =>
  fs.access(file).then(
    () => true,
    () => false,
  );

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A value for redis.conf, quoted so a path with spaces stays one argument. */
const quoted = (value: string): string => `"${value.replace(/[\\"]/g, '\\$&')}"`;

interface ServerSettings {
  port: number;
  memoryMb: number;
  password: string;
  adminSecret: string;
  /** Only once append-only files exist: a server started with `appendonly yes` and none ignores dump.rdb. */
  appendOnly: boolean;
}

function redisConf(files: RedisFiles, settings: ServerSettings): string {
  return [
    '# Written by cloudplane on every ensure: edits here do not last.',
    'bind 127.0.0.1',
    `port ${settings.port}`,
    'protected-mode yes',
    'daemonize no',
    `pidfile ${quoted(files.pidFile)}`,
    `dir ${quoted(files.dataDir)}`,
    'dbfilename dump.rdb',
    `appendonly ${settings.appendOnly ? 'yes' : 'no'}`,
    `maxmemory ${settings.memoryMb}mb`,
    'maxmemory-policy noeviction',
    // Hashes, not passwords: the file never holds a secret a client could use.
    `user ${TENANT_USER} on #${sha256(settings.password)} ~* &* +@all -@admin`,
    `user ${ADMIN_USER} on #${sha256(settings.adminSecret)} ~* &* +@all`,
    '',
  ].join('\n');
}

/** Replaces a file whole, so a reader never sees half of it. */
async function writeWhole(file: string, content: string): Promise<void> {
  const temporary = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(temporary, content, { mode: 0o600 });
  await fs.rename(temporary, file);
}

function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return fields;
}

interface Login {
  port: number;
  username: string;
  password: string;
}

/**
 * One short connection. ioredis reports why a connection failed (a refused password, a refused
 * port) only as an `error` event and rejects with "Connection is closed"; the event's error is
 * the one thrown here.
 */
async function withRedis<T>(login: Login, use: (client: Redis) => Promise<T>): Promise<T> {
  // Loaded with the first Redis database: a tenth of a second of start-up otherwise.
  const { Redis } = await import('ioredis');
  const client = new Redis({
    host: '127.0.0.1',
    port: login.port,
    username: login.username,
    password: login.password,
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let failure: Error | undefined;
  client.on('error', (error: Error) => (failure = error));
  try {
    await client.connect().catch((error: unknown) => {
      throw failure ?? error;
    });
    return await use(client);
  } finally {
    client.disconnect();
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const refusesPassword = (error: unknown): boolean => /^(WRONGPASS|NOAUTH)/.test(messageOf(error));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs work one piece at a time per key, so two calls never rewrite one database's files at once. */
class SerialQueues {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const next = (this.tails.get(key) ?? Promise.resolve()).catch(() => undefined).then(work);
    this.tails.set(key, next);
    void next
      .catch(() => undefined)
      .then(() => {
        if (this.tails.get(key) === next) this.tails.delete(key);
      });
    return next;
  }
}

/** The port allocation's key in the queues: one database at a time picks a port. */
const PORTS = '#ports';

class LocalRedis implements LocalEngine {
  private readonly logger: Logger;
  private readonly supervisor: RedisSupervisor;
  private readonly ports: PortPool;
  private readonly queues = new SerialQueues();
  private installed: Promise<string | undefined> | undefined;

  constructor(private readonly options: LocalEngineOptions) {
    this.logger = options.logger.child({ engine: 'redis' });
    this.supervisor = new RedisSupervisor({ logger: this.logger });
    this.ports = new PortPool(options.config.redisPorts, 'CLOUDPLANE_REDIS_PORTS');
  }

  async ensure(workload: DatabaseWorkload, password: string): Promise<DatabaseObservation> {
    const version = await this.installedVersion();
    if (!version) return recorded();
    checkVersion(workload, version);
    return this.queues.run(workload.id, async () => {
      const files = filesOf(this.options.config.dir, workload.id);
      const port = await this.converge(files, workload, password);
      return this.observeRunning(files, port, password);
    });
  }

  async observe(workload: DatabaseWorkload, password: string): Promise<DatabaseObservation> {
    if (!(await this.installedVersion())) return recorded();
    const files = filesOf(this.options.config.dir, workload.id);
    const port = await readPort(files);
    if (port === undefined) {
      return { realization: 'real', state: 'degraded', message: 'the database has no redis-server here' };
    }
    const health = this.supervisor.health(workload.id);
    if (health.state === 'running') return this.observeRunning(files, port, password);
    const message =
      health.state === 'restarting'
        ? health.reason
        : 'its redis-server is not running; it starts when the database is next ensured';
    return { realization: 'real', state: 'degraded', message, access: this.accessOf(port, password) };
  }

  async remove(workload: DatabaseWorkload): Promise<void> {
    const files = filesOf(this.options.config.dir, workload.id);
    await this.queues.run(workload.id, async () => {
      await this.supervisor.stop(files);
      await fs.rm(files.dir, { recursive: true, force: true });
    });
  }

  async backup(workload: DatabaseWorkload, _password: string, backupId: string): Promise<BackupArtifact> {
    const files = filesOf(this.options.config.dir, workload.id);
    return this.queues.run(workload.id, async () => {
      const admin = await this.adminLogin(files);
      await withRedis(admin, (client) => saveSnapshot(client)).catch(
        failedAs('ServerUnreachable', `redis ${workload.id} could not be saved`),
      );
      const file = await backupFile(this.options.config, backupId, 'rdb');
      await fs.copyFile(files.dumpFile, file);
      this.logger.info({ database: workload.id, backup: backupId }, 'redis snapshot copied');
      return artifactOf(file);
    });
  }

  async restore(artifact: BackupArtifact, target: DatabaseWorkload, password: string): Promise<void> {
    const version = await this.installedVersion();
    if (!version) throw new WorkloadError('EngineUnavailable', recorded().message!);
    checkVersion(target, version);
    await checkSnapshot(artifact);
    await this.queues.run(target.id, async () => {
      const files = filesOf(this.options.config.dir, target.id);
      await this.converge(files, target, password, artifact.location);
      this.logger.info({ database: target.id }, 'redis restored from a snapshot');
    });
  }

  async close(): Promise<void> {
    await this.supervisor.stopAll();
  }

  /**
   * Brings the database's server to the workload: its files, its process, its memory limit,
   * its password. With `snapshot`, the server starts again from that RDB file instead of its own
   * data; if it cannot load it, its own data comes back and the restore fails.
   * A database this call created is removed again when it fails.
   */
  private async converge(
    files: RedisFiles,
    workload: DatabaseWorkload,
    password: string,
    snapshot?: string,
  ): Promise<number> {
    const created = !(await exists(files.dir));
    try {
      await fs.mkdir(files.dataDir, { recursive: true, mode: 0o700 });
      const port = (await readPort(files)) ?? (await this.allocatePort(files));
      const settings: ServerSettings = {
        port,
        memoryMb: workload.memoryMb ?? DEFAULT_MEMORY_MB,
        password,
        adminSecret: await adminSecretOf(files),
        appendOnly: false,
      };
      const admin: Login = { port, username: ADMIN_USER, password: settings.adminSecret };
      if (snapshot) await this.startFrom(files, settings, admin, snapshot);
      else await this.start(files, settings, admin);
      await this.apply(files, settings, admin);
      if (created) this.logger.info({ database: workload.id, port }, 'redis database created');
      return port;
    } catch (error) {
      if (created) {
        await this.supervisor.stop(files);
        await fs.rm(files.dir, { recursive: true, force: true });
      }
      throw error;
    }
  }

  private async start(files: RedisFiles, settings: ServerSettings, admin: Login): Promise<void> {
    await writeWhole(files.confFile, redisConf(files, { ...settings, appendOnly: await aofExists(files) }));
    await this.supervisor.start(files);
    await this.waitUntilAnswering(files, admin);
  }

  /** Swaps the server's data for the snapshot, keeping its own data aside until the snapshot loads. */
  private async startFrom(files: RedisFiles, settings: ServerSettings, admin: Login, snapshot: string) {
    await this.supervisor.stop(files);
    const kept = [files.dumpFile, path.join(files.dataDir, 'appendonlydir')];
    for (const file of kept) await fs.rm(`${file}.previous`, { recursive: true, force: true });
    for (const file of kept) await fs.rename(file, `${file}.previous`).catch(() => undefined);
    await fs.copyFile(snapshot, files.dumpFile);
    try {
      await this.start(files, settings, admin);
    } catch (error) {
      await this.supervisor.stop(files);
      for (const file of kept) await fs.rm(file, { recursive: true, force: true });
      for (const file of kept) await fs.rename(`${file}.previous`, file).catch(() => undefined);
      await this.start(files, settings, admin).catch(() => undefined);
      throw new WorkloadError(
        'RestoreFailed',
        `redis-server could not load the backup: ${messageOf(error)}`,
        {
          cause: error,
        },
      );
    }
    for (const file of kept) await fs.rm(`${file}.previous`, { recursive: true, force: true });
  }

  /** What the running server must match: memory, append-only files, the tenant's password. */
  private async apply(files: RedisFiles, settings: ServerSettings, admin: Login): Promise<void> {
    await withRedis(admin, async (client) => {
      await client.config('SET', 'maxmemory', `${settings.memoryMb}mb`);
      if (!(await aofExists(files))) await enableAppendOnly(client, files);
    }).catch(failedAs('ServerRefused', `redis ${files.id} refused`));
    await writeWhole(files.confFile, redisConf(files, { ...settings, appendOnly: true }));
    const tenant: Login = { port: settings.port, username: TENANT_USER, password: settings.password };
    const current = await withRedis(tenant, (client) => client.ping()).then(
      () => true,
      (error: unknown) => {
        if (refusesPassword(error)) return false;
        throw new WorkloadError(
          'ServerUnreachable',
          `redis ${files.id} does not answer: ${messageOf(error)}`,
        );
      },
    );
    if (current) return;
    const closed = await withRedis(admin, async (client) => {
      await client.call('ACL', 'SETUSER', TENANT_USER, 'resetpass', `#${sha256(settings.password)}`);
      // A new password locks out new connections only: the ones made with the old one go too.
      return client.call('CLIENT', 'KILL', 'USER', TENANT_USER);
    }).catch(failedAs('ServerRefused', `redis ${files.id} refused`));
    this.logger.info({ database: files.id, closedConnections: closed }, 'redis password set');
  }

  private async observeRunning(
    files: RedisFiles,
    port: number,
    password: string,
  ): Promise<DatabaseObservation> {
    const access = this.accessOf(port, password);
    try {
      const info = await withRedis({ port, username: TENANT_USER, password }, async (client) =>
        parseInfo(`${await client.info('server')}\n${await client.info('memory')}`),
      );
      return {
        realization: 'real',
        state: 'ready',
        access,
        version: info.get('redis_version'),
        storageUsedBytes: Number(info.get('used_memory') ?? 0),
      };
    } catch (error) {
      const message = refusesPassword(error)
        ? 'its redis-server refuses the current password; ensuring the database sets it again'
        : `its redis-server does not answer: ${messageOf(error)}`;
      return { realization: 'real', state: 'degraded', message, access };
    }
  }

  private accessOf(port: number, password: string): DatabaseAccess {
    const host = this.options.config.advertisedHost;
    const hostInUrl = host.includes(':') ? `[${host}]` : host;
    return {
      host,
      port,
      username: TENANT_USER,
      database: '0',
      connectionString: `redis://${TENANT_USER}:${encodeURIComponent(password)}@${hostInUrl}:${port}/0`,
    };
  }

  private async adminLogin(files: RedisFiles): Promise<Login> {
    const port = await readPort(files);
    if (port === undefined) throw new WorkloadError('NotFound', `redis ${files.id} does not exist here`);
    return { port, username: ADMIN_USER, password: await adminSecretOf(files) };
  }

  /** Picks a port no other database holds and remembers it, so the database keeps it across restarts. */
  private allocatePort(files: RedisFiles): Promise<number> {
    return this.queues.run(PORTS, async () => {
      const root = path.dirname(files.dir);
      const claimed = new Set<number>();
      for (const id of await fs.readdir(root)) {
        const port = await readPort({ portFile: path.join(root, id, 'port') });
        if (port !== undefined) claimed.add(port);
      }
      const port = await this.ports.allocate(claimed);
      await writeWhole(files.portFile, `${port}\n`);
      return port;
    });
  }

  private async waitUntilAnswering(files: RedisFiles, admin: Login): Promise<void> {
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    let last: unknown;
    while (Date.now() < deadline) {
      const health = this.supervisor.health(files.id);
      if (health.state === 'restarting' && health.failures >= STARTS_BEFORE_GIVING_UP) break;
      if (health.state === 'running') {
        try {
          await withRedis(admin, (client) => client.ping());
          return;
        } catch (error) {
          last = error;
        }
      }
      await sleep(POLL_MS);
    }
    const said = this.supervisor.lastWords(files.id) || (last ? messageOf(last) : 'no answer');
    throw new WorkloadError('ServerUnreachable', `redis-server for ${files.id} does not answer: ${said}`);
  }

  /** The version of the machine's redis-server, or nothing when there is none to run. */
  private installedVersion(): Promise<string | undefined> {
    this.installed ??= runCommand(REDIS_SERVER, ['--version'], 'EngineUnavailable').then(
      (output) => /v=(\d+(?:\.\d+)*)/.exec(output)?.[1],
      (error: unknown) => {
        this.logger.warn(
          { reason: messageOf(error) },
          'no redis-server on this machine: Redis databases are recorded',
        );
        return undefined;
      },
    );
    return this.installed;
  }
}

function recorded(): DatabaseObservation {
  return {
    realization: 'recorded',
    state: 'recorded',
    message: `redis-server is not installed on the platform host (${REDIS_SERVER})`,
  };
}

function checkVersion(workload: DatabaseWorkload, installed: string): void {
  const major = installed.split('.')[0]!;
  if (workload.version !== undefined && workload.version !== major) {
    throw new WorkloadError(
      'UnsupportedVersion',
      `redis ${workload.version} is not offered here; versions: ${major}`,
    );
  }
}

async function readPort(files: Pick<RedisFiles, 'portFile'>): Promise<number | undefined> {
  const text = await fs.readFile(files.portFile, 'utf8').catch(() => undefined);
  const port = Number(text?.trim());
  return text !== undefined && Number.isInteger(port) && port > 0 ? port : undefined;
}

/** The platform's own secret for the database's server, made once and kept beside its data. */
async function adminSecretOf(files: RedisFiles): Promise<string> {
  const kept = await fs.readFile(files.adminFile, 'utf8').catch(() => undefined);
  if (kept?.trim()) return kept.trim();
  const secret = randomBytes(24).toString('base64url');
  await writeWhole(files.adminFile, secret);
  return secret;
}

const aofExists = (files: RedisFiles): Promise<boolean> => exists(path.join(files.dataDir, AOF_MANIFEST));

/** Turns append-only persistence on and waits for the first rewrite, which writes the files. */
async function enableAppendOnly(client: Redis, files: RedisFiles): Promise<void> {
  await client.config('SET', 'appendonly', 'yes');
  const deadline = Date.now() + WRITE_TIMEOUT_MS;
  for (;;) {
    const info = parseInfo(await client.info('persistence'));
    if (info.get('aof_last_bgrewrite_status') === 'err') {
      throw new WorkloadError('ServerRefused', `redis ${files.id} could not write its append-only files`);
    }
    const rewriting =
      info.get('aof_rewrite_in_progress') !== '0' || info.get('aof_rewrite_scheduled') !== '0';
    if (!rewriting && (await aofExists(files))) return;
    if (Date.now() > deadline) {
      throw new WorkloadError(
        'ServerRefused',
        `redis ${files.id} did not write its append-only files in time`,
      );
    }
    await sleep(POLL_MS);
  }
}

/** A fresh dump.rdb: BGSAVE, then wait until a save newer than the request has finished. */
async function saveSnapshot(client: Redis): Promise<void> {
  const saves = async () => parseInfo(await client.info('persistence'));
  const before = Number((await saves()).get('rdb_saves'));
  // SCHEDULE: when an append-only rewrite is running, save right after it instead of failing.
  await client.call('BGSAVE', 'SCHEDULE');
  const deadline = Date.now() + WRITE_TIMEOUT_MS;
  for (;;) {
    const info = await saves();
    if (Number(info.get('rdb_saves')) > before && info.get('rdb_bgsave_in_progress') === '0') {
      if (info.get('rdb_last_bgsave_status') !== 'ok') {
        throw new WorkloadError('BackupFailed', 'redis-server could not write its snapshot (BGSAVE failed)');
      }
      return;
    }
    if (Date.now() > deadline)
      throw new WorkloadError('BackupFailed', 'redis-server did not finish its snapshot');
    await sleep(POLL_MS);
  }
}

/** Refuses an artifact that is not an RDB file before anything of the target is touched. */
async function checkSnapshot(artifact: BackupArtifact): Promise<void> {
  const handle = await fs.open(artifact.location, 'r').catch((error: unknown) => {
    throw new WorkloadError('BackupMissing', 'the backup file is gone', { cause: error });
  });
  try {
    const head = Buffer.alloc(RDB_MAGIC.length);
    await handle.read(head, 0, head.length, 0);
    if (head.toString('latin1') !== RDB_MAGIC) {
      throw new WorkloadError('InvalidBackup', 'the backup is not a Redis snapshot (RDB file)');
    }
  } finally {
    await handle.close();
  }
}

/** A client library's error as a `WorkloadError`, saying what failed; one already said passes through. */
function failedAs(reason: string, what: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof WorkloadError) throw error;
    throw new WorkloadError(reason, `${what}: ${messageOf(error)}`, { cause: error });
  };
}

export function redisEngine(options: LocalEngineOptions): LocalEngine {
  return new LocalRedis(options);
}
