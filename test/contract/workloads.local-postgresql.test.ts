import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workloadsConfig, type WorkloadsConfig } from '../../config/workloads.js';
import { createLocalRuntime } from '../../workloads/local/index.js';
import { privatePostgres, type PrivatePostgres } from '../../workloads/local/engines/private-postgres.js';
import { WorkloadError, type DatabaseWorkload, type WorkloadRuntime } from '../../workloads/runtime.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { postgresqlClient } from '../fixtures/workload-sql-clients.js';
import { describeDatabaseRuntimeContract } from './workloads.contract.js';

const machineServerUrl = process.env.CLOUDPLANE_TEST_DATABASE_URL || undefined;

const configFor = (dataDir: string, postgresAdminUrl?: string): WorkloadsConfig => ({
  ...workloadsConfig({}, { dataDir }),
  postgresAdminUrl,
});

/** A data dir the `postgres` system user can reach, which the server runs as when tests run as root. */
async function temporaryDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cloudplane-postgresql-'));
  await fs.chmod(dir, 0o755);
  return dir;
}

const password = () => randomBytes(18).toString('base64url');
const database = (extra: Partial<DatabaseWorkload> = {}): DatabaseWorkload => ({
  id: `db_${randomBytes(6).toString('hex')}`,
  organization: 'org-postgresql',
  engine: 'postgresql',
  storageGb: 1,
  ...extra,
});

const superuserUrl = (superuser: { user: string; password: string; host: string; port: number }) =>
  `postgresql://${superuser.user}:${encodeURIComponent(superuser.password)}@${superuser.host}:${superuser.port}/postgres`;

async function onServer<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const roleExists = (url: string, name: string) =>
  onServer(
    url,
    async (client) =>
      (await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [name])).rowCount === 1,
  );

/** Whether the server lets a role in with a wrong password, as a pg_hba.conf `trust` line does. */
async function letsAnyPasswordIn(url: string): Promise<boolean> {
  const role = `cp_probe_${randomBytes(6).toString('hex')}`;
  await onServer(url, (client) => client.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password()}'`));
  try {
    const target = new URL(url);
    target.username = role;
    target.password = password();
    await onServer(target.toString(), async () => undefined);
    return true;
  } catch {
    return false;
  } finally {
    await onServer(url, (client) => client.query(`DROP ROLE ${role}`));
  }
}

async function portWithNothingListening(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const machineServerTrusts = machineServerUrl ? await letsAnyPasswordIn(machineServerUrl) : false;
if (!machineServerUrl) {
  console.warn(
    'CLOUDPLANE_TEST_DATABASE_URL is not set: the PostgreSQL cases on the machine server are skipped',
  );
} else if (machineServerTrusts) {
  console.warn(
    'CLOUDPLANE_TEST_DATABASE_URL names a server that lets any password in (pg_hba.conf trust): the contract runs ' +
      'through an admin URL on a private server instead, and the machine server is checked for the warning only',
  );
}

/** A private server the test runs itself, for the cases that need an admin URL with a server that checks passwords. */
async function startedPrivateServer(): Promise<{ server: PrivatePostgres; url: string; dir: string }> {
  const dir = await temporaryDir();
  const server = privatePostgres(path.join(dir, 'admin-server'), '15', capturedLogger().logger);
  return { server, url: superuserUrl(await server.start()), dir };
}

describeDatabaseRuntimeContract('local (private server)', 'postgresql', async () => {
  const dir = await temporaryDir();
  const runtime = createLocalRuntime({ config: configFor(dir), logger: capturedLogger().logger });
  return {
    runtime,
    client: postgresqlClient,
    organization: 'org-contract',
    async cleanup() {
      await runtime.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
});

describeDatabaseRuntimeContract('local (admin URL)', 'postgresql', async () => {
  const own = machineServerUrl && !machineServerTrusts ? undefined : await startedPrivateServer();
  const dir = await temporaryDir();
  const runtime = createLocalRuntime({
    config: configFor(dir, own?.url ?? machineServerUrl),
    logger: capturedLogger().logger,
  });
  return {
    runtime,
    client: postgresqlClient,
    organization: 'org-contract',
    async cleanup() {
      await runtime.close();
      await own?.server.stop();
      await fs.rm(dir, { recursive: true, force: true });
      if (own) await fs.rm(own.dir, { recursive: true, force: true });
    },
  };
});

describe.skipIf(!machineServerUrl || !machineServerTrusts)(
  'PostgreSQL on a server that trusts this machine',
  () => {
    it('says the password protects nothing instead of calling the database ready', async () => {
      const dir = await temporaryDir();
      const runtime = createLocalRuntime({
        config: configFor(dir, machineServerUrl),
        logger: capturedLogger().logger,
      });
      const workload = database();
      try {
        const observation = await runtime.databases.ensure(workload, password());
        expect(observation).toMatchObject({ realization: 'real', state: 'degraded' });
        expect(observation.message).toContain('pg_hba.conf');
        expect(observation.message).toContain('CLOUDPLANE_POSTGRES_ADMIN_URL');
      } finally {
        await runtime.databases.remove(workload);
        await runtime.close();
        await fs.rm(dir, { recursive: true, force: true });
      }
    });
  },
);

describe('the private PostgreSQL server', { timeout: 60_000 }, () => {
  let dir: string;
  let config: WorkloadsConfig;
  const runtimes: WorkloadRuntime[] = [];
  const serverDir = () => path.join(config.dir, 'postgresql-15');
  const postmasterPid = async () =>
    Number((await fs.readFile(path.join(serverDir(), 'data', 'postmaster.pid'), 'utf8')).split('\n')[0]);

  beforeAll(async () => {
    dir = await temporaryDir();
    config = configFor(dir);
  });
  afterAll(async () => {
    for (const runtime of runtimes) await runtime.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('starts on first use, stops on close, and starts again with the data kept', async () => {
    const captured = capturedLogger();
    const first = createLocalRuntime({ config, logger: captured.logger });
    runtimes.push(first);
    expect(existsSync(serverDir())).toBe(false);

    const workload = database();
    const secret = password();
    const made = await first.databases.ensure(workload, secret);
    expect(made).toMatchObject({
      realization: 'real',
      state: 'ready',
      version: expect.stringMatching(/^15\./),
    });
    await postgresqlClient.write(made.access!, secret, 'survives');
    const pid = await postmasterPid();
    expect(isAlive(pid)).toBe(true);
    expect((await fs.stat(path.join(serverDir(), 'superuser-password'))).mode & 0o777).toBe(0o600);

    await first.close();
    expect(isAlive(pid)).toBe(false);

    const second = createLocalRuntime({ config, logger: captured.logger });
    runtimes.push(second);
    const observed = await second.databases.observe(workload, secret);
    expect(observed).toMatchObject({ realization: 'real', state: 'ready' });
    expect(observed.access).toEqual(made.access);
    expect(observed.storageUsedBytes).toBeGreaterThan(0);
    expect(await postgresqlClient.read(observed.access!, secret)).toEqual(['survives']);
    await second.databases.remove(workload);

    const logged = JSON.stringify(captured.lines);
    expect(logged).not.toContain(secret);
    expect(logged).not.toContain(
      (await fs.readFile(path.join(serverDir(), 'superuser-password'), 'utf8')).trim(),
    );
  });

  it('takes no connection from a tenant to the platform database', async () => {
    const runtime = createLocalRuntime({ config, logger: capturedLogger().logger });
    runtimes.push(runtime);
    const workload = database();
    const secret = password();
    const access = (await runtime.databases.ensure(workload, secret)).access!;
    await expect(postgresqlClient.read({ ...access, database: 'postgres' }, secret)).rejects.toThrow(
      /permission denied for database/,
    );
    await runtime.databases.remove(workload);
  });
});

describe('PostgreSQL failures', { timeout: 60_000 }, () => {
  let own: Awaited<ReturnType<typeof startedPrivateServer>>;
  let dir: string;
  let runtime: WorkloadRuntime;

  beforeAll(async () => {
    own = await startedPrivateServer();
    dir = await temporaryDir();
    runtime = createLocalRuntime({ config: configFor(dir, own.url), logger: capturedLogger().logger });
  }, 120_000);
  afterAll(async () => {
    await runtime?.close();
    await own?.server.stop();
    await fs.rm(dir, { recursive: true, force: true });
    if (own) await fs.rm(own.dir, { recursive: true, force: true });
  });

  it('refuses a version no server here runs, listing the offered ones, and makes nothing', async () => {
    const workload = database({ version: '9.1' });
    const refused = await runtime.databases.ensure(workload, password()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WorkloadError);
    expect(refused).toMatchObject({
      reason: 'UnsupportedVersion',
      message: 'postgresql 9.1 is not offered; versions: 14, 15, 16, 17',
    });
    expect(await roleExists(own.url, workload.id)).toBe(false);
    expect(existsSync(path.join(dir, 'workloads'))).toBe(false);
  });

  it("puts a database of the admin server's major there, and another major on a private server of its own", async () => {
    const onAdmin = database({ version: '15' });
    expect((await runtime.databases.ensure(onAdmin, password())).state).toBe('ready');
    expect(await roleExists(own.url, onAdmin.id)).toBe(true);

    const elsewhere = database({ version: '16' });
    const made = await runtime.databases.ensure(elsewhere, password());
    expect(made).toMatchObject({ state: 'ready', version: expect.stringMatching(/^16\./) });
    expect(made.access!.port).not.toBe(Number(new URL(own.url).port));
    expect(await roleExists(own.url, elsewhere.id)).toBe(false);
    expect(existsSync(path.join(dir, 'workloads', 'postgresql-16'))).toBe(true);
    await runtime.databases.remove(onAdmin);
    await runtime.databases.remove(elsewhere);
  });

  it('leaves no role behind when the database cannot be made', async () => {
    const workload = database();
    // CREATE DATABASE copies template1, and refuses while anyone is connected to it.
    const blocker = new pg.Client({ connectionString: own.url.replace(/\/postgres$/, '/template1') });
    await blocker.connect();
    try {
      const refused = await runtime.databases.ensure(workload, password()).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(WorkloadError);
      expect(refused).toMatchObject({ reason: 'ServerRefused' });
      expect((refused as WorkloadError).message).toContain('template1');
    } finally {
      await blocker.end();
    }
    expect(await roleExists(own.url, workload.id)).toBe(false);
    expect((await runtime.databases.ensure(workload, password())).state).toBe('ready');
    await runtime.databases.remove(workload);
  });

  it('answers a wrong admin URL with the reason, never the URL, and makes nothing', async () => {
    const secret = 'admin-url-secret';
    const port = await portWithNothingListening();
    const wrongDir = await temporaryDir();
    const wrong = createLocalRuntime({
      config: configFor(wrongDir, `postgres://postgres:${secret}@127.0.0.1:${port}/postgres`),
      logger: capturedLogger().logger,
    });
    try {
      const workload = database();
      const refused = await wrong.databases.ensure(workload, password()).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(WorkloadError);
      expect(refused).toMatchObject({ reason: 'ServerUnreachable' });
      expect((refused as WorkloadError).message).toMatch(/not reachable: .*ECONNREFUSED/);
      expect((refused as WorkloadError).message).not.toContain(secret);

      const observed = await wrong.databases.observe(workload, password());
      expect(observed).toMatchObject({ realization: 'real', state: 'degraded' });
      expect(observed.message).toMatch(/not reachable/);
      await expect(wrong.databases.remove(workload)).rejects.toMatchObject({ reason: 'ServerUnreachable' });
      expect(existsSync(path.join(wrongDir, 'workloads'))).toBe(false);
    } finally {
      await wrong.close();
      await fs.rm(wrongDir, { recursive: true, force: true });
    }
  });

  it('keeps open sessions when the password stays, and ends them when it changes', async () => {
    const workload = database();
    const old = password();
    const access = (await runtime.databases.ensure(workload, old)).access!;
    const session = new pg.Client({ connectionString: access.connectionString });
    session.on('error', () => undefined);
    await session.connect();
    try {
      await runtime.databases.ensure(workload, old);
      await expect(session.query('SELECT 1')).resolves.toMatchObject({ rowCount: 1 });
      await runtime.databases.ensure(workload, password());
      await expect(session.query('SELECT 1')).rejects.toThrow();
    } finally {
      await session.end().catch(() => undefined);
    }
    await runtime.databases.remove(workload);
  });

  it('reports a password the database no longer accepts as degraded', async () => {
    const workload = database();
    await runtime.databases.ensure(workload, password());
    const observed = await runtime.databases.observe(workload, password());
    expect(observed).toMatchObject({ realization: 'real', state: 'degraded' });
    expect(observed.message).toMatch(/refuses the credentials.*password authentication failed/);
    await runtime.databases.remove(workload);
  });
});

const runsAsRoot = process.getuid?.() === 0;
if (!runsAsRoot) {
  console.warn('not run as root: the case of a data dir the postgres user cannot reach is skipped');
}

describe.skipIf(!runsAsRoot)('a server folder the postgres user cannot reach', () => {
  it('names the folder and what to change when it already holds the server files, and moves nothing', async () => {
    const closed = await fs.mkdtemp(path.join(os.tmpdir(), 'cloudplane-closed-'));
    const dir = path.join(closed, 'data', 'workloads', 'postgresql-15');
    try {
      await fs.mkdir(path.join(dir, 'data'), { recursive: true });
      await fs.writeFile(path.join(dir, 'data', 'PG_VERSION'), '15\n');
      const server = privatePostgres(dir, '15', capturedLogger().logger);
      const refused = await server.start().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(WorkloadError);
      expect((refused as WorkloadError).message).toContain(`the postgres system user cannot reach ${dir}`);
      expect((refused as WorkloadError).message).toContain('CLOUDPLANE_DATA_DIR');
      expect((await fs.lstat(dir)).isDirectory()).toBe(true);
    } finally {
      await fs.rm(closed, { recursive: true, force: true });
    }
  });
});
