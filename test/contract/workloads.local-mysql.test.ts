import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workloadsConfig, type WorkloadsConfig } from '../../config/workloads.js';
import { createLocalRuntime } from '../../workloads/local/index.js';
import { installedProgram } from '../../workloads/local/sql-names.js';
import { WorkloadError, type DatabaseWorkload, type WorkloadRuntime } from '../../workloads/runtime.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { mysqlClient } from '../fixtures/workload-sql-clients.js';
import { describeDatabaseRuntimeContract } from './workloads.contract.js';

const machineServerUrl = process.env.CLOUDPLANE_TEST_MYSQL_URL || undefined;
const mariadbd = installedProgram(['mariadbd']);
if (!machineServerUrl) {
  console.warn('CLOUDPLANE_TEST_MYSQL_URL is not set: the MySQL cases on the machine server are skipped');
}
if (!mariadbd) console.warn('mariadbd is not installed: the private MariaDB cases are skipped');

const configFor = (dataDir: string, mysqlAdminUrl?: string): WorkloadsConfig => ({
  ...workloadsConfig({}, { dataDir }),
  mysqlAdminUrl,
});

/** A data dir the `mysql` system user can reach, which the server runs as when tests run as root. */
async function temporaryDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cloudplane-mysql-'));
  await fs.chmod(dir, 0o755);
  return dir;
}

const password = () => randomBytes(18).toString('base64url');
const database = (extra: Partial<DatabaseWorkload> = {}): DatabaseWorkload => ({
  id: `db_${randomBytes(6).toString('hex')}`,
  organization: 'org-mysql',
  engine: 'mysql',
  storageGb: 1,
  ...extra,
});

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

async function userExists(url: string, name: string): Promise<boolean> {
  const connection = await mysql.createConnection(url);
  try {
    const [rows] = await connection.query<mysql.RowDataPacket[]>('SELECT 1 FROM mysql.user WHERE User = ?', [
      name,
    ]);
    return rows.length > 0;
  } finally {
    await connection.end();
  }
}

describe.skipIf(!machineServerUrl)('MySQL at CLOUDPLANE_TEST_MYSQL_URL', () => {
  describeDatabaseRuntimeContract('local (admin URL)', 'mysql', async () => {
    const dir = await temporaryDir();
    const runtime = createLocalRuntime({
      config: configFor(dir, machineServerUrl),
      logger: capturedLogger().logger,
    });
    return {
      runtime,
      client: mysqlClient,
      organization: 'org-contract',
      async cleanup() {
        await runtime.close();
        await fs.rm(dir, { recursive: true, force: true });
      },
    };
  });

  describe('failures', () => {
    let dir: string;
    let runtime: WorkloadRuntime;
    beforeAll(async () => {
      dir = await temporaryDir();
      runtime = createLocalRuntime({
        config: configFor(dir, machineServerUrl),
        logger: capturedLogger().logger,
      });
    });
    afterAll(async () => {
      await runtime?.close();
      await fs.rm(dir, { recursive: true, force: true });
    });

    it('refuses a version the server does not run, naming the one it does, and makes nothing', async () => {
      const workload = database({ version: '5.7' });
      const refused = await runtime.databases.ensure(workload, password()).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(WorkloadError);
      expect(refused).toMatchObject({ reason: 'UnsupportedVersion' });
      expect((refused as WorkloadError).message).toMatch(
        /^mysql 5\.7 is not offered here; versions: \d+\.\d+\.\d+$/,
      );
      expect(await userExists(machineServerUrl!, workload.id)).toBe(false);

      const running = (refused as WorkloadError).message.split('versions: ')[1]!;
      const line = running.split('.').slice(0, 2).join('.');
      const accepted = await runtime.databases.ensure({ ...workload, version: line }, password());
      expect(accepted).toMatchObject({ state: 'ready' });
      // A MariaDB server says so after the version it runs (10.11.19-MariaDB); MySQL does not.
      expect(accepted.version).toMatch(new RegExp(`^${running.replaceAll('.', '\\.')}(-MariaDB)?$`));
      await runtime.databases.remove(workload);
    });

    it('reports a password the database no longer accepts as degraded', async () => {
      const workload = database();
      await runtime.databases.ensure(workload, password());
      const observed = await runtime.databases.observe(workload, password());
      expect(observed).toMatchObject({ realization: 'real', state: 'degraded' });
      expect(observed.message).toMatch(/refuses the credentials.*Access denied/);
      await runtime.databases.remove(workload);
    });
  });
});

describe.skipIf(!mariadbd)('the private MariaDB server', () => {
  describeDatabaseRuntimeContract('local (private server)', 'mysql', async () => {
    const dir = await temporaryDir();
    const runtime = createLocalRuntime({ config: configFor(dir), logger: capturedLogger().logger });
    return {
      runtime,
      client: mysqlClient,
      organization: 'org-contract',
      async cleanup() {
        await runtime.close();
        await fs.rm(dir, { recursive: true, force: true });
      },
    };
  });

  describe('sessions', () => {
    let dir: string;
    let runtime: WorkloadRuntime;
    beforeAll(async () => {
      dir = await temporaryDir();
      runtime = createLocalRuntime({ config: configFor(dir), logger: capturedLogger().logger });
    });
    afterAll(async () => {
      await runtime?.close();
      await fs.rm(dir, { recursive: true, force: true });
    });

    it('keeps open sessions when the password stays, and ends them when it changes', async () => {
      const workload = database();
      const old = password();
      const access = (await runtime.databases.ensure(workload, old)).access!;
      const session = await mysql.createConnection(access.connectionString);
      session.on('error', () => undefined);
      try {
        await runtime.databases.ensure(workload, old);
        await expect(session.query('SELECT 1')).resolves.toBeDefined();
        await runtime.databases.ensure(workload, password());
        await expect(session.query('SELECT 1')).rejects.toThrow();
      } finally {
        session.destroy();
      }
      await runtime.databases.remove(workload);
    });
  });

  describe('its lifecycle', { timeout: 90_000 }, () => {
    let dir: string;
    const runtimes: WorkloadRuntime[] = [];
    beforeAll(async () => {
      dir = await temporaryDir();
    });
    afterAll(async () => {
      for (const runtime of runtimes) await runtime.close();
      await fs.rm(dir, { recursive: true, force: true });
    });

    it('starts on first use, stops on close, and starts again with the data kept', async () => {
      const config = configFor(dir);
      const serverDir = path.join(config.dir, 'mariadb');
      const captured = capturedLogger();
      const first = createLocalRuntime({ config, logger: captured.logger });
      runtimes.push(first);
      expect(existsSync(serverDir)).toBe(false);

      const workload = database();
      const secret = password();
      const made = await first.databases.ensure(workload, secret);
      expect(made).toMatchObject({
        realization: 'real',
        state: 'ready',
        // The mysql engine says it is MariaDB.
        version: expect.stringMatching(/^\d+\.\d+\.\d+-MariaDB$/),
      });
      await mysqlClient.write(made.access!, secret, 'survives');
      const pid = Number((await fs.readFile(path.join(serverDir, 'mariadbd.pid'), 'utf8')).trim());
      expect(isAlive(pid)).toBe(true);
      expect((await fs.stat(path.join(serverDir, 'admin-password'))).mode & 0o777).toBe(0o600);

      await first.close();
      expect(isAlive(pid)).toBe(false);

      const second = createLocalRuntime({ config, logger: captured.logger });
      runtimes.push(second);
      const observed = await second.databases.observe(workload, secret);
      expect(observed).toMatchObject({ realization: 'real', state: 'ready' });
      expect(observed.access).toEqual(made.access);
      expect(observed.storageUsedBytes).toBeGreaterThan(0);
      expect(await mysqlClient.read(observed.access!, secret)).toEqual(['survives']);
      await second.databases.remove(workload);

      const logged = JSON.stringify(captured.lines);
      expect(logged).not.toContain(secret);
      expect(logged).not.toContain(
        (await fs.readFile(path.join(serverDir, 'admin-password'), 'utf8')).trim(),
      );
    });
  });
});

describe('MySQL with a wrong admin URL', () => {
  it('answers with the reason, never the URL, and makes nothing', async () => {
    const secret = 'admin-url-secret';
    const dir = await temporaryDir();
    const runtime = createLocalRuntime({
      config: configFor(dir, `mysql://root:${secret}@127.0.0.1:${await portWithNothingListening()}`),
      logger: capturedLogger().logger,
    });
    try {
      const workload = database();
      const refused = await runtime.databases.ensure(workload, password()).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(WorkloadError);
      expect(refused).toMatchObject({ reason: 'ServerUnreachable' });
      expect((refused as WorkloadError).message).toMatch(/not reachable: .*ECONNREFUSED/);
      expect((refused as WorkloadError).message).not.toContain(secret);

      const observed = await runtime.databases.observe(workload, password());
      expect(observed).toMatchObject({ realization: 'real', state: 'degraded' });
      expect(observed.message).toMatch(/not reachable/);
      await expect(runtime.databases.remove(workload)).rejects.toMatchObject({ reason: 'ServerUnreachable' });
      expect(existsSync(path.join(dir, 'workloads', 'mariadb'))).toBe(false);
    } finally {
      await runtime.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
