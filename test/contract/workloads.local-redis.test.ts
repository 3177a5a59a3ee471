import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workloadsConfig, type WorkloadsConfig } from '../../config/workloads.js';
import type { LocalEngine } from '../../workloads/local/engine.js';
import { createLocalRuntime } from '../../workloads/local/index.js';
import { redisEngine } from '../../workloads/local/engines/redis.js';
import { REDIS_SERVER } from '../../workloads/local/engines/redis-supervisor.js';
import { WorkloadError, type DatabaseWorkload } from '../../workloads/runtime.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { pingWithConnectionString, redisClient } from '../fixtures/workload-redis-client.js';
import { describeDatabaseRuntimeContract } from './workloads.contract.js';

const present = existsSync(REDIS_SERVER);
if (!present) console.warn(`SKIPPING the local Redis suites: ${REDIS_SERVER} is not installed`);

/** The settings `serve` would read, with a data dir and a port range of the test's own. */
const configFor = (dataDir: string, ports: string): WorkloadsConfig =>
  workloadsConfig({ CLOUDPLANE_REDIS_PORTS: ports }, { dataDir });

async function temporaryDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'cloudplane-redis-'));
}

describe.skipIf(!present)('the local runtime with Redis', () => {
  describeDatabaseRuntimeContract('local', 'redis', async () => {
    const dir = await temporaryDir();
    const options = { config: configFor(dir, '26379-26399'), logger: capturedLogger().logger };
    const runtime = createLocalRuntime(options);
    return {
      runtime,
      client: redisClient,
      organization: 'org-contract',
      async cleanup() {
        await runtime.close();
        await fs.rm(dir, { recursive: true, force: true });
      },
    };
  });

  describe('local specifics', () => {
    let dir: string;
    let captured: ReturnType<typeof capturedLogger>;
    let engine: LocalEngine;
    const password = () => randomBytes(18).toString('base64url');
    const database = (extra: Partial<DatabaseWorkload> = {}): DatabaseWorkload => ({
      id: `db_${randomBytes(6).toString('hex')}`,
      organization: 'org-local',
      engine: 'redis',
      memoryMb: 32,
      ...extra,
    });
    const filesOf = (id: string) => path.join(dir, 'workloads', 'redis', id);

    beforeAll(async () => {
      dir = await temporaryDir();
      captured = capturedLogger();
      engine = redisEngine({ config: configFor(dir, '26400-26419'), logger: captured.logger });
    });
    afterAll(async () => {
      await engine?.close();
      await fs.rm(dir, { recursive: true, force: true });
    });

    it('gives a connection string a client connects with on its own', async () => {
      const secret = password();
      const observation = await engine.ensure(database(), secret);
      expect(observation.access).toMatchObject({ host: '127.0.0.1', username: 'default', database: '0' });
      expect(observation.access!.connectionString).toBe(
        `redis://default:${encodeURIComponent(secret)}@127.0.0.1:${observation.access!.port}/0`,
      );
      expect(await pingWithConnectionString(observation.access!.connectionString)).toBe('PONG');
    });

    it('reports the running version and offers only its major', async () => {
      const secret = password();
      const observation = await engine.ensure(database({ version: '7' }), secret);
      expect(observation.version).toMatch(/^7\.\d+\.\d+$/);
      expect(observation.storageUsedBytes).toBeGreaterThan(0);
      const refused = engine.ensure(database({ version: '6' }), secret);
      await expect(refused).rejects.toBeInstanceOf(WorkloadError);
      await expect(refused).rejects.toMatchObject({
        reason: 'UnsupportedVersion',
        message: 'redis 6 is not offered here; versions: 7',
      });
    });

    it('keeps the password out of files, argv and logs, and the files private', async () => {
      const secret = password();
      const workload = database();
      await engine.ensure(workload, secret);
      await engine.ensure(workload, password());
      const conf = await fs.readFile(path.join(filesOf(workload.id), 'redis.conf'), 'utf8');
      expect(conf).not.toContain(secret);
      expect((await fs.stat(path.join(filesOf(workload.id), 'redis.conf'))).mode & 0o777).toBe(0o600);
      expect((await fs.stat(filesOf(workload.id))).mode & 0o777).toBe(0o700);
      const pid = (await fs.readFile(path.join(filesOf(workload.id), 'redis.pid'), 'utf8')).trim();
      expect(await fs.readFile(`/proc/${pid}/cmdline`, 'utf8')).not.toContain(secret);
      expect(JSON.stringify(captured.lines)).not.toContain(secret);
    });

    it("does not let the tenant change the server's limits or users", async () => {
      const secret = password();
      const access = (await engine.ensure(database(), secret)).access!;
      const client = new Redis({
        port: access.port,
        username: access.username,
        password: secret,
        lazyConnect: true,
      });
      try {
        await client.connect();
        await expect(client.config('SET', 'maxmemory', '0')).rejects.toThrow(/NOPERM/);
        await expect(client.call('ACL', 'SETUSER', 'default', 'nopass')).rejects.toThrow(/NOPERM/);
      } finally {
        client.disconnect();
      }
    });

    it('brings a database back with its data and port after the platform restarts', async () => {
      const secret = password();
      const workload = database();
      const before = (await engine.ensure(workload, secret)).access!;
      await redisClient.write(before, secret, 'durable');
      await engine.close();
      await expect(redisClient.read(before, secret)).rejects.toThrow();
      expect(await engine.observe(workload, secret)).toMatchObject({ state: 'degraded' });

      engine = redisEngine({ config: configFor(dir, '26400-26419'), logger: captured.logger });
      const after = await engine.ensure(workload, secret);
      expect(after.access).toEqual(before);
      expect(await redisClient.read(after.access!, secret)).toEqual(['durable']);
    });

    it('refuses to restore what is not a Redis snapshot and leaves the target as it was', async () => {
      const secret = password();
      const target = database();
      const access = (await engine.ensure(target, secret)).access!;
      await redisClient.write(access, secret, 'mine');
      const bogus = path.join(dir, 'not-a-snapshot.rdb');
      await fs.writeFile(bogus, 'PGDMP not redis');
      await expect(engine.restore({ location: bogus, sizeBytes: 15 }, target, secret)).rejects.toMatchObject({
        reason: 'InvalidBackup',
      });
      expect(await redisClient.read(access, secret)).toEqual(['mine']);
    });

    it('keeps the target as it was when redis-server cannot load the snapshot', async () => {
      const secret = password();
      const target = database();
      const access = (await engine.ensure(target, secret)).access!;
      await redisClient.write(access, secret, 'mine');
      const corrupt = path.join(dir, 'corrupt.rdb');
      await fs.writeFile(corrupt, Buffer.concat([Buffer.from('REDIS0011'), randomBytes(64)]));
      await expect(
        engine.restore({ location: corrupt, sizeBytes: 73 }, target, secret),
      ).rejects.toMatchObject({
        reason: 'RestoreFailed',
      });
      expect(await redisClient.read(access, secret)).toEqual(['mine']);
    });

    it('says a removed database is gone', async () => {
      const secret = password();
      const workload = database();
      await engine.ensure(workload, secret);
      await engine.remove(workload);
      expect(existsSync(filesOf(workload.id))).toBe(false);
      expect(await engine.observe(workload, secret)).toMatchObject({
        realization: 'real',
        state: 'degraded',
      });
    });
  });
});
