/**
 * The database versions the platform offers, through the REST API: the list it serves, a real
 * database of each PostgreSQL major on that major's private server, and the refusals of what it
 * does not offer. The platform's data dir is inside a `mktemp -d` folder that only its owner may
 * enter, as with `npm start` from a project under /root: run as root, the private servers run as
 * `postgres`, which cannot reach it, and must still work.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION } from '../../control-plane/kind-descriptor.js';
import { DATABASE, type Database, type DatabaseVersion } from '../../crds/data-services.js';
import { SERVER_HOMES_DIR } from '../../workloads/local/private-server.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

type Json = Record<string, unknown>;
const MAJORS = ['14', '15', '16', '17'];

let closedFolder: string;
let dataDir: string;
let app: TestPlatform;
let owner: TestAccount;
const created = new Map<string, string>();

beforeAll(async () => {
  closedFolder = await fs.mkdtemp(path.join(os.tmpdir(), 'cp-closed-'));
  dataDir = path.join(closedFolder, 'project', '.cloudplane');
  app = await startPlatform({ env: { CLOUDPLANE_DATA_DIR: dataDir } });
  owner = await registerAndSignIn(app);
  // All four at once: their servers are made side by side.
  for (const major of MAJORS) {
    const answer = await call('POST', '/v1/databases', {
      name: `pg-${major}`,
      engine: 'postgresql',
      version: major,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    created.set(major, data(answer).id as string);
  }
}, 60_000);

afterAll(async () => {
  await app?.close();
  // The folders the private servers kept outside the data dir, when the platform ran as root.
  const workloads = path.join(dataDir, 'workloads');
  for (const entry of await fs.readdir(workloads).catch(() => [])) {
    const home = await fs.readlink(path.join(workloads, entry)).catch(() => undefined);
    if (home?.startsWith(SERVER_HOMES_DIR)) await fs.rm(home, { recursive: true, force: true });
  }
  await fs.rm(closedFolder, { recursive: true, force: true });
}, 120_000);

async function call(method: string, route: string, body?: unknown) {
  const response = await app.call(method, route, { token: owner.token, body });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json };
}
const data = (answer: { body: Json }) => answer.body.data as Json;
const errorOf = (answer: { body: Json }) =>
  answer.body.error as { code: string; message: string; details: Json };

it('runs in a data dir inside a folder only its owner may enter', async () => {
  expect((await fs.stat(closedFolder)).mode & 0o777).toBe(0o700);
});

it('lists the engines with their versions, PostgreSQL 14 to 17 and MariaDB under mysql', async () => {
  const answer = await call('GET', '/v1/databases/versions');
  expect(answer.status).toBe(200);
  expect(answer.body.meta).toMatchObject({ total: 4 });
  expect(data(answer)).toEqual([
    {
      engine: 'postgresql',
      product: 'PostgreSQL',
      aliases: [],
      versions: MAJORS,
      default_version: '15',
      sized_by: 'storage_gb',
    },
    {
      engine: 'mysql',
      product: 'MariaDB',
      aliases: ['mariadb'],
      versions: ['10.11'],
      default_version: '10.11',
      sized_by: 'storage_gb',
    },
    expect.objectContaining({ engine: 'redis', versions: ['7'], sized_by: 'memory_mb' }),
    expect.objectContaining({ engine: 'mongodb', versions: ['7.0'] }),
  ]);
});

describe.each(MAJORS)('PostgreSQL %s', (major) => {
  it('is a real database on a server of that major, reachable with the credentials from the vault', async () => {
    const id = created.get(major)!;
    const database = await eventually(async () => {
      const current = data(await call('GET', `/v1/databases/${id}`));
      expect(current.status, JSON.stringify(current)).toBe('available');
      return current;
    }, 120_000);
    expect(database.version).toMatch(new RegExp(`^${major}\\.\\d+$`));
    const { vault_cluster_id, vault_path } = database.credentials as Json;
    const secret = await call(
      'GET',
      `/api/v1/vault/${String(vault_cluster_id)}/secret/${String(vault_path)}`,
    );
    expect(secret.status).toBe(200);
    const values = (secret.body.data as Json).data as Json;
    const client = new pg.Client({ connectionString: values.connection_string as string });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: string }>('select version()');
      expect(rows[0]!.version).toMatch(new RegExp(`^PostgreSQL ${major}\\.`));
    } finally {
      await client.end();
    }
    if (process.getuid?.() === 0) {
      // Run as root, the server's files live where the postgres user can reach them.
      const home = await fs.readlink(path.join(dataDir, 'workloads', `postgresql-${major}`));
      expect(home.startsWith(`${SERVER_HOMES_DIR}/`)).toBe(true);
    }
  }, 150_000);
});

describe('what the platform does not offer', () => {
  it.each([
    [{ engine: 'postgresql', version: '9.1' }, 'version', 'postgresql version must be one of 14, 15, 16, 17'],
    [{ engine: 'postgresql', version: '18' }, 'version', 'postgresql version must be one of 14, 15, 16, 17'],
    [{ engine: 'mariadb', version: '8.0' }, 'version', 'mysql version must be one of 10.11'],
    [{ engine: 'oracle' }, 'engine', 'engine must be one of postgresql, mysql (or mariadb), redis, mongodb'],
  ])('refuses %j with a 422 naming the field and what is offered', async (asked, field, message) => {
    const answer = await call('POST', '/v1/databases', { name: 'refused', ...asked });
    expect(answer.status, JSON.stringify(answer.body)).toBe(422);
    expect(errorOf(answer).details).toMatchObject({ field });
    expect(errorOf(answer).message).toContain(message);
  });

  it('is refused by the Database kind itself, as kubectl apply would be', async () => {
    const applied = app.store.create<Database>(DATABASE, {
      apiVersion: API_VERSION,
      kind: DATABASE.kind,
      metadata: { name: 'db-applied', namespace: 'default' },
      spec: { name: 'applied', engine: 'postgresql', version: '9.1' as DatabaseVersion },
    });
    await expect(applied).rejects.toMatchObject({
      reason: 'Invalid',
      message: expect.stringContaining('spec.version'),
    });
  });

  it("says why in the database's message when the kind holds a version its engine does not offer", async () => {
    const namespace = (await app.store.list<Database>(DATABASE)).items.find(
      (database) => database.spec?.name === 'pg-14',
    )!.metadata.namespace;
    await app.store.create<Database>(DATABASE, {
      apiVersion: API_VERSION,
      kind: DATABASE.kind,
      metadata: { name: 'db-0a0a0a0a0a0a', namespace },
      spec: { name: 'mismatched', engine: 'redis', version: '17', memoryMb: 64 },
    });
    const refused = await eventually(async () => {
      const current = data(await call('GET', '/v1/databases/db_0a0a0a0a0a0a'));
      expect(current.status, JSON.stringify(current)).toBe('error');
      return current;
    }, 30_000);
    expect(refused.message).toBe('spec.version: redis version must be one of 7');
    expect((await call('DELETE', '/v1/databases/db_0a0a0a0a0a0a')).status).toBe(204);
  });

  it('filters the list by an engine under its other name', async () => {
    const answer = await call('GET', '/v1/databases?engine=mariadb');
    expect(answer.status).toBe(200);
    expect(data(answer)).toEqual([]);
    const postgresql = await call('GET', '/v1/databases?engine=postgresql');
    expect((data(postgresql) as unknown as Json[]).map((row) => row.name).sort()).toEqual(
      MAJORS.map((major) => `pg-${major}`),
    );
  });
});
