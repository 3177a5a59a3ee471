import { afterAll, beforeAll, expect, it } from 'vitest';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import {
  createTestPostgresDatabase,
  describeWithPostgres,
  type TestPostgresDatabase,
} from '../fixtures/db-postgres.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

describeWithPostgres('vault on a PostgreSQL data plane', () => {
  let postgres: TestPostgresDatabase;
  let app: TestPlatform;
  let owner: TestAccount;

  beforeAll(async () => {
    postgres = (await createTestPostgresDatabase())!;
    app = await startPlatform({ databaseUrl: postgres.url, userAgent: 'vault-api-test' });
    owner = await registerAndSignIn(app);
  });
  afterAll(async () => {
    await app?.close();
    await postgres?.drop();
  });

  const call = (method: string, path: string, body?: unknown) =>
    app.call(method, `/api/v1/vault${path}`, { token: owner.token, body });

  it('keeps versions, check-and-set, listing, usage counts and the audit log', async () => {
    const created = (await (await call('POST', '', { name: 'pg' })).json()) as {
      id: string;
      unseal_keys: string[];
    };
    for (const key of created.unseal_keys.slice(0, 3)) await call('POST', `/${created.id}/unseal`, { key });
    const id = created.id;
    for (const path of ['team_a/x', 'team@a/y', 'teamXa/z']) {
      expect((await call('POST', `/${id}/secret/${path}`, { data: { v: path } })).status).toBe(200);
    }
    expect(
      (await call('POST', `/${id}/secret/team_a/x`, { data: { v: 2 }, options: { cas: 0 } })).status,
    ).toBe(409);
    expect(
      (await call('POST', `/${id}/secret/team_a/x`, { data: { v: 2 }, options: { cas: 1 } })).status,
    ).toBe(200);
    const listed = (await (await call('GET', `/${id}/secret?path=team_a&list=true`)).json()) as {
      data: { keys: string[] };
    };
    expect(listed.data.keys).toEqual(['x']);
    const read = (await (await call('GET', `/${id}/secret/team_a/x?version=1`)).json()) as {
      data: { data: unknown };
    };
    expect(read.data.data).toEqual({ v: 'team_a/x' });
    const detail = (await (await call('GET', `/${id}`)).json()) as {
      total_secrets: number;
      storage_used_mb: number;
    };
    expect(detail).toMatchObject({ total_secrets: 3, storage_used_mb: 1 });
    const audit = (await (await call('GET', `/${id}/audit`)).json()) as unknown[];
    expect(audit.length).toBeGreaterThan(5);
  });
});
