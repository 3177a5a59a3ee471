/**
 * Managed databases, shares, backups and quotas through the REST API, on the local workload
 * runtime: real servers (PostgreSQL on the private server a newcomer's `npm start` runs),
 * credentials read from the managed vault cluster, clients that connect.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE, type Database } from '../../crds/data-services.js';
import { registerAndSignIn, signIn, type TestAccount } from '../fixtures/accounts-app.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

const postgresAdminUrl = process.env.CLOUDPLANE_TEST_DATABASE_URL;
if (!postgresAdminUrl) {
  console.warn(
    'data-services API: CLOUDPLANE_TEST_DATABASE_URL is unset; databases run on a private PostgreSQL',
  );
}

type Json = Record<string, unknown>;
let app: TestPlatform;
let owner: TestAccount;

beforeAll(async () => {
  app = await startPlatform({
    env: {
      CLOUDPLANE_REDIS_PORTS: '27400-27420',
      CLOUDPLANE_QUOTA_DATABASES: '6',
      CLOUDPLANE_QUOTA_NFS_SHARES: '3',
      ...(process.env.CLOUDPLANE_TEST_MYSQL_URL
        ? { CLOUDPLANE_MYSQL_ADMIN_URL: process.env.CLOUDPLANE_TEST_MYSQL_URL }
        : {}),
    },
  });
  owner = await registerAndSignIn(app);
}, 60_000);
afterAll(async () => app?.close(), 60_000);

async function call(method: string, route: string, body?: unknown, token = owner.token) {
  const response = await app.call(method, route, { token, body });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json };
}
const data = (answer: { body: Json }) => answer.body.data as Json;
const errorOf = (answer: { body: Json }) => answer.body.error as { code: string; message: string };

async function availableDatabase(body: Json): Promise<Json> {
  const created = await call('POST', '/v1/databases', body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = data(created).id as string;
  return eventually(async () => {
    const database = data(await call('GET', `/v1/databases/${id}`));
    expect(database.status, JSON.stringify(database)).toBe('available');
    return database;
  }, 60_000);
}

async function secretOf(database: Json, version?: number): Promise<Json> {
  const { vault_cluster_id, vault_path } = database.credentials as {
    vault_cluster_id: string;
    vault_path: string;
  };
  const answer = await call(
    'GET',
    `/api/v1/vault/${vault_cluster_id}/secret/${vault_path}${version ? `?version=${version}` : ''}`,
  );
  expect(answer.status).toBe(200);
  return answer.body as Json;
}

async function query(connectionString: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('postgresql databases', () => {
  let database: Json;
  let connectionString: string;

  it('creates a database whose connection string, read from the vault, lets a client create a table', async () => {
    database = await availableDatabase({ name: 'orders', engine: 'postgresql', storage_gb: 2 });
    expect(database).toMatchObject({
      engine: 'postgresql',
      realization: 'real',
      storage_gb: 2,
      memory_mb: null,
      credentials: { vault_cluster_id: 'managed', vault_path: `databases/${database.id}` },
    });
    expect(database.id).toMatch(/^db_[0-9a-f]{12}$/);
    expect(database.version).toMatch(/^15/);
    const secret = await secretOf(database);
    const values = (secret.data as Json).data as Json;
    expect(Object.keys(values).sort()).toEqual([
      'connection_string',
      'database',
      'host',
      'password',
      'port',
      'username',
    ]);
    connectionString = values.connection_string as string;
    await query(connectionString, 'create table items (name text)');
    await query(connectionString, "insert into items values ('one'), ('two')");
    expect((await query(connectionString, 'select count(*)::int as n from items')).rows[0].n).toBe(2);

    const password = values.password as string;
    expect(JSON.stringify(database)).not.toContain(password);
    const object = (await app.store.list<Database>(DATABASE)).items.find(
      (item) => item.spec?.name === 'orders',
    );
    expect(object).toBeDefined();
    expect(JSON.stringify(object)).not.toContain(password);
    expect(JSON.stringify(app.logLines)).not.toContain(password);
  }, 90_000);

  it('writes an hourly usage sample of the database for the usage aggregation, once per hour', async () => {
    const samples = await app.database.kysely
      .selectFrom('usage_samples')
      .selectAll()
      .where('resource_id', '=', database.id as string)
      .execute();
    expect(samples).toHaveLength(1);
    expect(samples[0]).toMatchObject({
      meter: 'database.storage_gb_hours',
      unit: 'GB-hour',
      resource_type: 'database',
      resource_name: 'orders',
      hour: '2026-03-01T09:00:00.000Z',
      quantity: 2,
    });
  });

  it('lists the managed vault cluster among the vault clusters', async () => {
    const clusters = (await call('GET', '/api/v1/vault')).body as unknown as Json[];
    expect(clusters.map((cluster) => cluster.name)).toContain('managed');
  });

  it('rotates the password: the old one stops working at once, the secret gains a version', async () => {
    const rotated = await call('POST', `/v1/databases/${database.id}/credentials/rotate`);
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    const credentials = (data(rotated).credentials ?? {}) as Json;
    expect(credentials).toMatchObject({
      vault_cluster_id: 'managed',
      vault_path: `databases/${database.id}`,
      version: 2,
    });
    await expect(query(connectionString, 'select 1')).rejects.toThrow(/password/);
    const fresh = ((await secretOf(database)).data as Json).data as Json;
    connectionString = fresh.connection_string as string;
    expect((await query(connectionString, 'select count(*)::int as n from items')).rows[0].n).toBe(2);
  }, 60_000);

  it('grows storage and refuses a shrink with 422 naming the field', async () => {
    const grown = await call('PATCH', `/v1/databases/${database.id}`, { storage_gb: 3 });
    expect(grown.status).toBe(200);
    expect(data(grown).storage_gb).toBe(3);
    const shrunk = await call('PATCH', `/v1/databases/${database.id}`, { storage_gb: 1 });
    expect(shrunk.status).toBe(422);
    expect(errorOf(shrunk).message).toMatch(/storage_gb can only grow/);
  });

  it('backs up with a real size and restores into a new database with the rows', async () => {
    const created = await call('POST', '/v1/backups', { resource_id: database.id, retention_days: 3 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const backupId = data(created).id as string;
    const backup = await eventually(async () => {
      const current = data(await call('GET', `/v1/backups/${backupId}`));
      expect(current.status, JSON.stringify(current)).toBe('completed');
      return current;
    }, 60_000);
    expect(backup.size_bytes as number).toBeGreaterThan(0);
    expect(Date.parse(backup.expires_at as string) - Date.parse(backup.completed_at as string)).toBe(
      3 * 86_400_000,
    );

    const restore = await call('POST', `/v1/backups/${backupId}/restore`, {});
    expect(restore.status, JSON.stringify(restore.body)).toBe(202);
    const { restore_id, target_resource_id } = data(restore) as {
      restore_id: string;
      target_resource_id: string;
    };
    await eventually(async () => {
      const current = data(await call('GET', `/v1/backups/${backupId}/restores/${restore_id}`));
      expect(current.status, JSON.stringify(current)).toBe('completed');
    }, 90_000);
    const target = data(await call('GET', `/v1/databases/${target_resource_id}`));
    expect(target.name).toBe('orders-restore-1');
    const targetString = (((await secretOf(target)).data as Json).data as Json).connection_string as string;
    expect(
      (await query(targetString, 'select name from items order by name')).rows.map((row) => row.name),
    ).toEqual(['one', 'two']);
  }, 180_000);

  it('deletes the database: gone from the API and from the server', async () => {
    expect((await call('DELETE', `/v1/databases/${database.id}`)).status).toBe(204);
    await eventually(
      async () => expect((await call('GET', `/v1/databases/${database.id}`)).status).toBe(404),
      30_000,
    );
    await expect(query(connectionString, 'select 1')).rejects.toThrow();
  }, 60_000);
});

describe('engines this machine only records', () => {
  it('keeps a mongodb database as recorded: never available, saying what is missing', async () => {
    const created = await call('POST', '/v1/databases', {
      name: 'documents',
      engine: 'mongodb',
      storage_gb: 1,
    });
    expect(created.status).toBe(201);
    const id = data(created).id as string;
    const database = await eventually(async () => {
      const current = data(await call('GET', `/v1/databases/${id}`));
      expect(current.status).toBe('recorded');
      return current;
    }, 30_000);
    expect(database).toMatchObject({ realization: 'recorded', endpoint: null, credentials: null });
    expect(database.message).toMatch(/CLOUDPLANE_MONGODB_ADMIN_URL/);
    const backup = await call('POST', '/v1/backups', { resource_id: id });
    const failed = await eventually(async () => {
      const current = data(await call('GET', `/v1/backups/${data(backup).id}`));
      expect(current.status).toBe('failed');
      return current;
    });
    expect(failed.message).toMatch(/recorded/);
    expect((await call('DELETE', `/v1/databases/${id}`)).status).toBe(204);
  }, 60_000);
});

describe('nfs shares', () => {
  it('creates a share a client writes into, measures it, backs it up and restores it', async () => {
    const created = await call('POST', '/v1/nfs-shares', { name: 'assets', size_gb: 1 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = data(created).id as string;
    expect(id).toMatch(/^nfs_[0-9a-f]{12}$/);
    const share = await eventually(async () => {
      const current = data(await call('GET', `/v1/nfs-shares/${id}`));
      expect(current.status).toBe('available');
      return current;
    }, 30_000);
    expect(share.message).toMatch(/not served over NFS/);
    const mount = share.mount as { server: string; path: string };
    fs.writeFileSync(path.join(mount.path, 'logo.png'), Buffer.alloc(300_000, 1));
    const backup = await call('POST', '/v1/backups', { resource_id: id });
    const backupId = data(backup).id as string;
    await eventually(
      async () => expect(data(await call('GET', `/v1/backups/${backupId}`)).status).toBe('completed'),
      30_000,
    );
    const restore = await call('POST', `/v1/backups/${backupId}/restore`, {});
    expect(restore.status).toBe(202);
    const target = data(restore).target_resource_id as string;
    await eventually(async () => {
      const current = data(await call('GET', `/v1/backups/${backupId}/restores/${data(restore).restore_id}`));
      expect(current.status, JSON.stringify(current)).toBe('completed');
    }, 30_000);
    const restored = data(await call('GET', `/v1/nfs-shares/${target}`));
    expect(fs.readdirSync((restored.mount as { path: string }).path)).toEqual(['logo.png']);
    expect((await call('DELETE', `/v1/nfs-shares/${id}`)).status).toBe(204);
    await eventually(async () => expect(fs.existsSync(mount.path)).toBe(false), 30_000);
  }, 90_000);
});

describe('bad input', () => {
  it.each([
    [
      { name: 'x', engine: 'oracle' },
      422,
      /engine must be one of postgresql, mysql \(or mariadb\), redis, mongodb/,
    ],
    [
      { name: 'x', engine: 'postgresql', version: '9' },
      422,
      /postgresql version must be one of 14, 15, 16, 17/,
    ],
    [{ name: 'x', engine: 'postgresql', memory_mb: 64 }, 422, /memory_mb/],
    [{ name: 'x', engine: 'redis', storage_gb: 5 }, 422, /storage_gb/],
    [{ name: 'x', engine: 'postgresql', storage_gb: 0 }, 422, /storage_gb/],
    [{ name: 'x', engine: 'postgresql', storage_gb: 100_000 }, 422, /storage_gb/],
    [{ name: 'x', engine: 'postgresql', storage_gb: '10' }, 400, /storage_gb/],
    [{ name: 'x', engine: 'postgresql', color: 'red' }, 400, /color/],
  ])('refuses %j with %i', async (body, status, message) => {
    const answer = await call('POST', '/v1/databases', body);
    expect(answer.status).toBe(status);
    expect(errorOf(answer).message).toMatch(message);
  });

  it('refuses a duplicate name with 409 and hides another organization behind 404', async () => {
    const first = await call('POST', '/v1/databases', { name: 'unique', engine: 'mongodb' });
    expect(first.status).toBe(201);
    const again = await call('POST', '/v1/databases', { name: 'unique', engine: 'mongodb' });
    expect(again.status).toBe(409);
    const stranger = await registerAndSignIn(app, 'Stranger');
    const id = data(first).id as string;
    for (const [method, route] of [
      ['GET', `/v1/databases/${id}`],
      ['PATCH', `/v1/databases/${id}`],
      ['DELETE', `/v1/databases/${id}`],
      ['POST', `/v1/databases/${id}/credentials/rotate`],
    ] as const) {
      const answer = await call(
        method,
        route,
        method === 'PATCH' ? { storage_gb: 50 } : undefined,
        stranger.token,
      );
      expect(answer.status, `${method} ${route}`).toBe(404);
    }
    const backup = await call('POST', '/v1/backups', { resource_id: id }, stranger.token);
    expect(backup.status).toBe(404);
    const list = await call('GET', '/v1/databases', undefined, stranger.token);
    expect(list.body.data).toEqual([]);
    expect((list.body.meta as Json).total).toBe(0);
  });

  it('validates a backup schedule and says when it runs next', async () => {
    const created = await call('POST', '/v1/databases', { name: 'scheduled', engine: 'mongodb' });
    const id = data(created).id as string;
    const wrong = await call('PUT', `/v1/databases/${id}/backup-schedule`, {
      cron: '61 * * * *',
      retention_days: 7,
    });
    expect(wrong.status).toBe(422);
    expect(errorOf(wrong).message).toMatch(/cron/);
    const fields = await call('PUT', `/v1/databases/${id}/backup-schedule`, {
      cron: '0 3 * *',
      retention_days: 7,
    });
    expect(fields.status).toBe(422);
    expect((await call('GET', `/v1/databases/${id}/backup-schedule`)).status).toBe(404);
    const set = await call('PUT', `/v1/databases/${id}/backup-schedule`, {
      cron: '0 3 * * *',
      retention_days: 7,
    });
    expect(set.status).toBe(200);
    expect(data(set)).toEqual({
      cron: '0 3 * * *',
      retention_days: 7,
      next_run_at: '2026-03-02T03:00:00.000Z',
    });
    expect(data(await call('GET', `/v1/databases/${id}/backup-schedule`))).toEqual(data(set));

    expect((await call('DELETE', `/v1/databases/${id}/backup-schedule`)).status).toBe(204);
    expect((await call('GET', `/v1/databases/${id}/backup-schedule`)).status).toBe(404);
    const again = await call('DELETE', `/v1/databases/${id}/backup-schedule`);
    expect(again.status).toBe(404);
    expect(errorOf(again).message).toBe(`database ${id} has no backup schedule`);
  });
});

describe('quotas', () => {
  it('reports limits and use, and answers 429 naming the quota past a limit', async () => {
    const account = await registerAndSignIn(app, 'Quota Keeper');
    const made = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        call('POST', '/v1/databases', { name: `q${n}`, engine: 'mongodb' }, account.token),
      ),
    );
    const statuses = made.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(6);
    const refused = made.find((answer) => answer.status === 429)!;
    expect(errorOf(refused)).toMatchObject({ code: 'quota_exceeded' });
    expect(errorOf(refused).message).toMatch(/quota databases exceeded: the organization uses 6 of 6/);
    const quotas = (await call('GET', '/v1/quotas', undefined, account.token)).body.data as Json[];
    expect(quotas.find((quota) => quota.resource === 'databases')).toEqual({
      resource: 'databases',
      limit: 6,
      used: 6,
    });
    expect(quotas.map((quota) => quota.resource)).toEqual([
      'vpcs',
      'vault_clusters',
      'databases',
      'database_storage_gb',
      'nfs_shares',
      'nfs_storage_gb',
      'backups',
      'streaming_clusters',
      'streaming_partitions',
    ]);
    const first = data(made.find((answer) => answer.status === 201)!).id as string;
    expect((await call('DELETE', `/v1/databases/${first}`, undefined, account.token)).status).toBe(204);
    await eventually(async () => {
      const now = (await call('GET', '/v1/quotas', undefined, account.token)).body.data as Json[];
      expect(now.find((quota) => quota.resource === 'databases')?.used).toBe(5);
    }, 30_000);
  }, 60_000);
});

const redisServer = fs.existsSync('/usr/bin/redis-server');
if (!redisServer)
  console.warn('SKIPPING the redis cases of the data-services API: /usr/bin/redis-server is missing');

describe.skipIf(!redisServer)('redis databases', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await registerAndSignIn(app, 'Redis User');
  });

  it('runs a redis database a client reaches with the connection string from the vault', async () => {
    const created = await call(
      'POST',
      '/v1/databases',
      { name: 'cache', engine: 'redis', memory_mb: 32 },
      account.token,
    );
    expect(created.status).toBe(201);
    const id = data(created).id as string;
    const database = await eventually(async () => {
      const current = data(await call('GET', `/v1/databases/${id}`, undefined, account.token));
      expect(current.status, JSON.stringify(current)).toBe('available');
      return current;
    }, 30_000);
    expect(database).toMatchObject({ engine: 'redis', memory_mb: 32, storage_gb: null });
    const secret = await call(
      'GET',
      `/api/v1/vault/managed/secret/databases/${id}`,
      undefined,
      account.token,
    );
    const connectionString = ((secret.body.data as Json).data as Json).connection_string as string;
    const client = new Redis(connectionString, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await client.connect();
    expect(await client.set('greeting', 'hello')).toBe('OK');
    expect(await client.get('greeting')).toBe('hello');
    await client.quit();
  }, 60_000);

  it('takes scheduled backups when their time comes and deletes them when their retention passes', async () => {
    const created = await call(
      'POST',
      '/v1/databases',
      { name: 'sessions', engine: 'redis', memory_mb: 32 },
      account.token,
    );
    const id = data(created).id as string;
    await eventually(async () => {
      expect(data(await call('GET', `/v1/databases/${id}`, undefined, account.token)).status).toBe(
        'available',
      );
    }, 30_000);
    const schedule = await call(
      'PUT',
      `/v1/databases/${id}/backup-schedule`,
      { cron: '*/5 * * * *', retention_days: 1 },
      account.token,
    );
    expect(data(schedule).next_run_at).toBe(
      new Date(Math.ceil((app.clock.now().getTime() + 1) / 300_000) * 300_000).toISOString(),
    );
    const backupsOf = async () =>
      ((await call('GET', `/v1/backups?resource_id=${id}`, undefined, account.token)).body.data as Json[]) ??
      [];
    expect(await backupsOf()).toEqual([]);
    // The controller plans the first run when it sees the schedule; the clock moves after that.
    await eventually(async () => {
      const object = (await app.store.list<Database>(DATABASE)).items.find(
        (item) => item.spec?.name === 'sessions',
      );
      expect(object?.status?.nextScheduledBackup).toBe(data(schedule).next_run_at);
    }, 30_000);
    // Time moves a minute at a time: a reconcile that reads the clock mid-way requeues from
    // where it read it, so one long jump could leave its requeue beyond the jump.
    const scheduled = await eventually(async () => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await app.clock.advance(60_000);
      const [backup] = await backupsOf();
      expect(backup).toMatchObject({ scheduled: true, status: 'completed', retention_days: 1 });
      return backup!;
    }, 30_000);
    expect(scheduled.size_bytes as number).toBeGreaterThan(0);
    await app.clock.advance(86_400_000 + 60_000);
    // A day later the access token has expired: sign in again.
    const { token } = await signIn(app, account.email, account.password);
    await eventually(async () => {
      const answer = await call('GET', `/v1/backups/${scheduled.id}`, undefined, token);
      expect(answer.status).toBe(404);
    }, 30_000);
  }, 90_000);
});

const mysqlUrl = process.env.CLOUDPLANE_TEST_MYSQL_URL;
if (!mysqlUrl)
  console.warn(
    'data-services API: CLOUDPLANE_TEST_MYSQL_URL is unset; mysql runs on a private mariadbd if there is one',
  );
const mariadbd = fs.existsSync('/usr/sbin/mariadbd');

describe.skipIf(!mysqlUrl && !mariadbd)('mysql databases', () => {
  it('runs a mysql database a client uses with the credentials from the vault', async () => {
    const account = await registerAndSignIn(app, 'MySQL User');
    const created = await call(
      'POST',
      '/v1/databases',
      { name: 'shop', engine: 'mysql', storage_gb: 1 },
      account.token,
    );
    const id = data(created).id as string;
    await eventually(async () => {
      const current = data(await call('GET', `/v1/databases/${id}`, undefined, account.token));
      expect(current.status, JSON.stringify(current)).toBe('available');
    }, 60_000);
    const secret = await call(
      'GET',
      `/api/v1/vault/managed/secret/databases/${id}`,
      undefined,
      account.token,
    );
    const values = (secret.body.data as Json).data as Json;
    const connection = await mysql.createConnection({
      host: values.host as string,
      port: values.port as number,
      user: values.username as string,
      password: values.password as string,
      database: values.database as string,
    });
    await connection.query('create table items (name varchar(20))');
    await connection.query("insert into items values ('one')");
    const [rows] = await connection.query('select name from items');
    expect(rows).toEqual([{ name: 'one' }]);
    await connection.end();
    expect((await call('DELETE', `/v1/databases/${id}`, undefined, account.token)).status).toBe(204);
  }, 90_000);
});
