import { afterAll, beforeAll, expect, it } from 'vitest';
import { registerAndSignIn } from '../fixtures/accounts-app.js';
import {
  createTestPostgresDatabase,
  describeWithPostgres,
  type TestPostgresDatabase,
} from '../fixtures/db-postgres.js';
import { startIntegrationsApp, type IntegrationsApp } from '../fixtures/provider-integrations-app.js';

const PAGER_KEY = 'PGKEY0123456789abcdefABCDEF01234';

describeWithPostgres('integrations on PostgreSQL', () => {
  let postgres: TestPostgresDatabase;
  let app: IntegrationsApp;

  beforeAll(async () => {
    postgres = (await createTestPostgresDatabase())!;
    app = await startIntegrationsApp({ databaseUrl: postgres.url });
    app.providers.pager.routingKeys.add(PAGER_KEY);
  });
  afterAll(async () => {
    await app?.close();
    await postgres?.drop();
  });

  it('lets one of many racing creates for one provider account win, answering 409 to the rest', async () => {
    const owner = await registerAndSignIn(app);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        app.call('POST', '/api/v1/integrations/pager', {
          token: owner.token,
          body: { name: `pager ${index}`, integration_key: PAGER_KEY, service_id: 'PSVC1' },
        }),
      ),
    );
    expect(results.map((response) => response.status).sort()).toEqual([
      201, 409, 409, 409, 409, 409, 409, 409,
    ]);
    const rows = await app.database.kysely.selectFrom('integration_credentials').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.sealed_credentials).not.toContain(PAGER_KEY);

    const created = (await results.find((response) => response.status === 201)!.json()) as { id: string };
    const test = await app.call('POST', `/api/v1/integrations/${created.id}/test`, { token: owner.token });
    const { test_id } = (await test.json()) as { test_id: string };
    await app.platform.idle();
    const result = await app.call('GET', `/api/v1/integrations/${created.id}/test/${test_id}`, {
      token: owner.token,
    });
    expect(await result.json()).toMatchObject({ status: 'passed' });
    const health = await app.call('GET', `/api/v1/integrations/${created.id}/health`, { token: owner.token });
    expect(await health.json()).toMatchObject({ status: 'healthy', uptime_percent: 100 });
  });
});
