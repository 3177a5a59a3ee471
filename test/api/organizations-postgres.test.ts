import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mailedToken, registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import {
  createTestPostgresDatabase,
  describeWithPostgres,
  type TestPostgresDatabase,
} from '../fixtures/db-postgres.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

describeWithPostgres('organizations as teams on PostgreSQL', () => {
  let postgres: TestPostgresDatabase;
  let app: TestPlatform;

  beforeAll(async () => {
    postgres = (await createTestPostgresDatabase())!;
    app = await startPlatform({
      databaseUrl: postgres.url,
      env: { CLOUDPLANE_KMS_KEY: randomBytes(32).toString('base64'), DATABASE_URL: postgres.url },
    });
  });
  afterAll(async () => {
    await app?.close();
    await postgres?.drop();
  });

  async function verified(name: string): Promise<TestAccount> {
    const account = await registerAndSignIn(app, name);
    await app.call('POST', '/v1/auth/verify-email', {
      body: { token: mailedToken(app, account.email, 'verify-email') },
    });
    return account;
  }

  it('keeps an owner when two owners demote each other at the same moment', async () => {
    const first = await verified('First Owner');
    const second = await verified('Second Owner');
    const organizationId = (
      await app.database.kysely
        .selectFrom('organization_members')
        .select('organization_id')
        .where('user_id', '=', first.id)
        .executeTakeFirstOrThrow()
    ).organization_id;
    await app.call('POST', `/v1/organizations/${organizationId}/invitations`, {
      token: first.token,
      body: { email: second.email, role: 'owner' },
    });
    const token = mailedToken(app, second.email, 'accept-invitation');
    expect((await app.call('POST', `/v1/invitations/${token}/accept`, { token: second.token })).status).toBe(
      200,
    );

    for (let round = 0; round < 5; round += 1) {
      const demote = (actor: TestAccount, target: TestAccount) =>
        app.call('PATCH', `/v1/organizations/${organizationId}/members/${target.id}`, {
          token: actor.token,
          body: { role: 'admin' },
        });
      const statuses = (await Promise.all([demote(first, second), demote(second, first)])).map(
        (response) => response.status,
      );
      const owners = await app.database.kysely
        .selectFrom('organization_members')
        .select('user_id')
        .where('organization_id', '=', organizationId)
        .where('role', '=', 'owner')
        .execute();
      expect(owners).toHaveLength(1);
      expect(statuses.sort()).toEqual(statuses.includes(409) ? [200, 409] : [200, 403]);
      // Make both owners again for the next round.
      const [owner] = owners;
      const ownerAccount = owner!.user_id === first.id ? first : second;
      const other = ownerAccount === first ? second : first;
      const promoted = await app.call('PATCH', `/v1/organizations/${organizationId}/members/${other.id}`, {
        token: ownerAccount.token,
        body: { role: 'owner' },
      });
      expect(promoted.status).toBe(200);
    }
  });
});
