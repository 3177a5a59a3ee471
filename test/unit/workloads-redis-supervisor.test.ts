import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { workloadsConfig, type WorkloadsConfig } from '../../config/workloads.js';
import { PortPool } from '../../workloads/local/port-pool.js';
import { redisEngine } from '../../workloads/local/engines/redis.js';
import {
  REDIS_SERVER,
  RedisSupervisor,
  type RedisProcessSpec,
} from '../../workloads/local/engines/redis-supervisor.js';
import type { DatabaseWorkload } from '../../workloads/runtime.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { eventually } from '../fixtures/eventually.js';

const present = existsSync(REDIS_SERVER);
if (!present) console.warn(`SKIPPING the redis-server supervisor tests: ${REDIS_SERVER} is not installed`);

/** Ports of this file only, apart from the other Redis suites that may run at the same time. */
const PORTS = { first: 26420, last: 26439 };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function ping(port: number, password?: string): Promise<string> {
  const client = new Redis({
    port,
    password,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.ping();
  } finally {
    client.disconnect();
  }
}

/** Holds a port as another program would, so the pool must skip it. */
async function occupy(port: number): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

describe.skipIf(!present)('redis-server supervision', () => {
  let dir: string;
  let captured: ReturnType<typeof capturedLogger>;

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cloudplane-supervisor-'));
    captured = capturedLogger();
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** A bare server of the test's own: no password, no persistence. */
  async function bareServer(id: string): Promise<{ spec: RedisProcessSpec; port: number }> {
    const port = await new PortPool(PORTS, 'TEST_PORTS').allocate(new Set());
    const dataDir = path.join(dir, id);
    await fs.mkdir(dataDir);
    const spec = {
      id,
      dataDir,
      confFile: path.join(dataDir, 'redis.conf'),
      pidFile: path.join(dataDir, 'redis.pid'),
    };
    await fs.writeFile(
      spec.confFile,
      `bind 127.0.0.1\nport ${port}\ndaemonize no\nsave ""\ndir ${dataDir}\npidfile ${spec.pidFile}\n`,
    );
    return { spec, port };
  }

  function runningPid(supervisor: RedisSupervisor, id: string): number {
    const health = supervisor.health(id);
    if (health.state !== 'running') throw new Error(`not running: ${JSON.stringify(health)}`);
    return health.pid;
  }

  it('restarts a server that was killed, says so meanwhile, and logs it', async () => {
    const supervisor = new RedisSupervisor({ logger: captured.logger });
    const { spec, port } = await bareServer('db_killed');
    try {
      await supervisor.start(spec);
      const first = runningPid(supervisor, spec.id);
      await eventually(async () => expect(await ping(port)).toBe('PONG'));

      process.kill(first, 'SIGKILL');
      await eventually(() => expect(supervisor.health(spec.id)).toMatchObject({ state: 'restarting' }));
      expect(supervisor.health(spec.id)).toMatchObject({ reason: expect.stringContaining('signal SIGKILL') });

      await eventually(async () => {
        expect(runningPid(supervisor, spec.id)).not.toBe(first);
        expect(await ping(port)).toBe('PONG');
      });
      expect(captured.lines).toContainEqual(
        expect.objectContaining({
          msg: 'redis-server exited; restarting it',
          database: spec.id,
          exit: 'signal SIGKILL',
        }),
      );
    } finally {
      await supervisor.stopAll();
    }
  });

  it('waits longer after each quick death, up to the limit', async () => {
    const supervisor = new RedisSupervisor({
      logger: captured.logger,
      restartDelay: { initialMs: 20, maxMs: 80 },
    });
    const { spec } = await bareServer('db_broken');
    await fs.writeFile(spec.confFile, 'no-such-directive yes\n');
    try {
      await supervisor.start(spec);
      await eventually(() =>
        expect(
          captured.lines.filter((line) => line.msg === 'redis-server exited; restarting it').length,
        ).toBeGreaterThan(4),
      );
      const delays = captured.lines
        .filter((line) => line.msg === 'redis-server exited; restarting it')
        .map((line) => line.restartInMs);
      expect(delays.slice(0, 5)).toEqual([20, 40, 80, 80, 80]);
      expect(supervisor.lastWords(spec.id)).toMatch(/Bad directive/);
    } finally {
      await supervisor.stopAll();
    }
  });

  it('stops a server an earlier platform process left running before starting its own', async () => {
    const { spec, port } = await bareServer('db_leftover');
    const leftover = spawn(REDIS_SERVER, [spec.confFile], {
      cwd: spec.dataDir,
      stdio: 'ignore',
      detached: true,
    });
    leftover.unref();
    await eventually(async () => expect(await ping(port)).toBe('PONG'));
    await eventually(() => expect(existsSync(spec.pidFile)).toBe(true));

    const supervisor = new RedisSupervisor({ logger: captured.logger });
    try {
      await supervisor.start(spec);
      expect(alive(leftover.pid!)).toBe(false);
      await eventually(async () => expect(await ping(port)).toBe('PONG'));
      expect(runningPid(supervisor, spec.id)).not.toBe(leftover.pid);
    } finally {
      await supervisor.stopAll();
      if (alive(leftover.pid!)) process.kill(leftover.pid!, 'SIGKILL');
    }
  });

  describe('the engine', () => {
    const config = (first: number, last: number): WorkloadsConfig =>
      workloadsConfig({ CLOUDPLANE_REDIS_PORTS: `${first}-${last}` }, { dataDir: dir });
    const database = (): DatabaseWorkload => ({
      id: `db_${randomBytes(6).toString('hex')}`,
      organization: 'org-unit',
      engine: 'redis',
      memoryMb: 16,
    });
    const pidOf = async (workload: DatabaseWorkload): Promise<number> =>
      Number(await fs.readFile(path.join(dir, 'workloads', 'redis', workload.id, 'redis.pid'), 'utf8'));

    it('answers PortPoolExhausted when every port is held, and leaves nothing behind', async () => {
      const port = await new PortPool(PORTS, 'TEST_PORTS').allocate(new Set());
      const engine = redisEngine({ config: config(port, port), logger: captured.logger });
      const taken = database();
      try {
        await engine.ensure(taken, 'first-secret');
        const refused = database();
        await expect(engine.ensure(refused, 'second-secret')).rejects.toMatchObject({
          name: 'WorkloadError',
          reason: 'PortPoolExhausted',
          message: expect.stringContaining(`no free port in CLOUDPLANE_REDIS_PORTS (${port}-${port})`),
        });
        expect(existsSync(path.join(dir, 'workloads', 'redis', refused.id))).toBe(false);
      } finally {
        await engine.close();
      }
    });

    it('skips a port another program holds', async () => {
      const port = await new PortPool(PORTS, 'TEST_PORTS').allocate(new Set());
      const held = await occupy(port);
      try {
        await expect(
          new PortPool({ first: port, last: port }, 'TEST_PORTS').allocate(new Set()),
        ).rejects.toMatchObject({
          reason: 'PortPoolExhausted',
        });
      } finally {
        held.close();
      }
    });

    it('reports a killed server as degraded until it is back', async () => {
      const engine = redisEngine({ config: config(PORTS.first, PORTS.last), logger: captured.logger });
      const workload = database();
      try {
        const access = (await engine.ensure(workload, 'the-secret')).access!;
        process.kill(await pidOf(workload), 'SIGKILL');
        await eventually(async () =>
          expect(await engine.observe(workload, 'the-secret')).toMatchObject({
            state: 'degraded',
            message: expect.stringContaining('restarting'),
          }),
        );
        await eventually(async () =>
          expect(await engine.observe(workload, 'the-secret')).toMatchObject({ state: 'ready', access }),
        );
        expect(await ping(access.port, 'the-secret')).toBe('PONG');
      } finally {
        await engine.close();
      }
    });

    it('leaves no server of its own running after close', async () => {
      const engine = redisEngine({ config: config(PORTS.first, PORTS.last), logger: captured.logger });
      const workloads = [database(), database()];
      for (const workload of workloads) await engine.ensure(workload, 'the-secret');
      const pids = await Promise.all(workloads.map(pidOf));
      expect(pids.every(alive)).toBe(true);
      await engine.close();
      expect(pids.filter(alive)).toEqual([]);
    });
  });
});
