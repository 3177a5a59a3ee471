import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDataPlane, type DataPlane } from '../../data-plane/data-plane.js';
import { preparedQuery } from '../../data-plane/prepared-query.js';
import { createLogger } from '../../observability/logger.js';
import {
  createTestPostgresDatabase,
  describeWithPostgres,
  type TestPostgresDatabase,
} from '../fixtures/db-postgres.js';

const insertUser = preparedQuery((db, id: string, email: string) =>
  db.insertInto('users').values({
    id,
    email,
    name: 'Prepared',
    password_hash: 'not a hash',
    email_verified: 0,
    two_factor_enabled: 0,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  }),
);
const userById = preparedQuery((db, id: string) =>
  db.selectFrom('users').select(['id', 'email', 'name']).where('id', '=', id),
);
// The same argument twice, and a constant of the query's own beside it.
const userByIdOrEmail = preparedQuery((db, value: string) =>
  db
    .selectFrom('users')
    .select('id')
    .where((eb) => eb.or([eb('id', '=', value), eb('email', '=', value)]))
    .where('name', '=', 'Prepared')
    .orderBy('id'),
);

/** What a prepared query must do on either backend of the data plane. */
function preparedQueryContract(open: () => Promise<DataPlane>, close: () => Promise<void>) {
  let database: DataPlane;
  beforeAll(async () => {
    database = await open();
  });
  afterAll(async () => {
    await database.close();
    await close();
  });

  it('runs with each call’s arguments, keeping the constants it was built with', async () => {
    await insertUser(database.kysely, 'u-1', 'one@example.com');
    await insertUser(database.kysely, 'u-2', 'two@example.com');
    expect(await userById(database.kysely, 'u-2')).toEqual([
      { id: 'u-2', email: 'two@example.com', name: 'Prepared' },
    ]);
    expect(await userById(database.kysely, 'nobody')).toEqual([]);
    expect(await userByIdOrEmail(database.kysely, 'one@example.com')).toEqual([{ id: 'u-1' }]);
    expect(await userByIdOrEmail(database.kysely, 'u-2')).toEqual([{ id: 'u-2' }]);
  });

  it('runs inside a transaction, which rolls it back with the rest', async () => {
    await expect(
      database.kysely.transaction().execute(async (trx) => {
        await insertUser(trx, 'u-3', 'three@example.com');
        expect(await userById(trx, 'u-3')).toHaveLength(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await userById(database.kysely, 'u-3')).toEqual([]);
  });

  it('never reads a transaction’s rows before it ends, and reads them once it has', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const insertedRow = new Promise<void>((resolve) => (inserted = resolve));
    const transaction = database.kysely.transaction().execute(async (trx) => {
      await insertUser(trx, 'u-4', 'four@example.com');
      inserted();
      await held;
    });
    await insertedRow;
    let released = false;
    const during = userById(database.kysely, 'u-4').then((rows) => ({ rows, beforeEnd: !released }));
    await delay(20);
    released = true;
    release();
    await transaction;
    const seen = await during;
    if (seen.beforeEnd) expect(seen.rows).toEqual([]);
    expect(await userById(database.kysely, 'u-4')).toHaveLength(1);
  });

  it('refuses a build that does not put every argument in the query', async () => {
    const ignoring = preparedQuery((db, _id: string) => db.selectFrom('users').select('id'));
    await expect(ignoring(database.kysely, 'u-1')).rejects.toThrow('uses 0 of its 1 arguments');
  });
}

describe('a prepared query on SQLite', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-prepared-'));
  preparedQueryContract(
    () => openDataPlane({ sqlitePath: path.join(dir, 'data-plane.db'), logger: createLogger('silent') }),
    async () => fs.rmSync(dir, { recursive: true, force: true }),
  );
});

describeWithPostgres('a prepared query on PostgreSQL', () => {
  let server: TestPostgresDatabase | undefined;
  preparedQueryContract(
    async () => {
      server = await createTestPostgresDatabase();
      return openDataPlane({ url: server!.url, sqlitePath: '', logger: createLogger('silent') });
    },
    async () => server?.drop(),
  );
});
