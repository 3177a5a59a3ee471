import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mailedToken, PASSWORD, registerAndSignIn, totpCode } from '../fixtures/accounts-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';
import { SCOPE_PROBE_ROUTES } from '../fixtures/accounts-probe-routes.js';
import { enveloped, flatError } from '../fixtures/api-bodies.js';
import {
  createTestPostgresDatabase,
  describeWithPostgres,
  type TestPostgresDatabase,
} from '../fixtures/db-postgres.js';

describeWithPostgres('accounts on PostgreSQL', () => {
  let postgres: TestPostgresDatabase;
  let app: TestPlatform;

  beforeAll(async () => {
    postgres = (await createTestPostgresDatabase())!;
    app = await startPlatform({
      databaseUrl: postgres.url,
      extraRoutes: [SCOPE_PROBE_ROUTES],
      env: { CLOUDPLANE_KMS_KEY: randomBytes(32).toString('base64'), DATABASE_URL: postgres.url },
    });
  });
  afterAll(async () => {
    await app?.close();
    await postgres?.drop();
  });

  it('registers, verifies, signs in and reads the profile', async () => {
    const account = await registerAndSignIn(app, 'Barbara Liskov');
    const verified = await app.call('POST', '/v1/auth/verify-email', {
      body: { token: mailedToken(app, account.email, 'verify-email') },
    });
    expect(verified.status).toBe(200);
    const me = await enveloped<{ email_verified: boolean; organizations: { role: string }[] }>(
      await app.call('GET', '/v1/auth/me', { token: account.token }),
    );
    expect(me.data).toMatchObject({ email_verified: true, organizations: [{ role: 'owner' }] });
  });

  it('rotates refresh tokens and revokes the family on reuse', async () => {
    const account = await registerAndSignIn(app);
    const rotated = await enveloped<{ token: string; refresh_token: string }>(
      await app.call('POST', '/v1/auth/refresh', { body: { refresh_token: account.refreshToken } }),
    );
    expect(
      (await app.call('POST', '/v1/auth/refresh', { body: { refresh_token: account.refreshToken } })).status,
    ).toBe(401);
    expect((await app.call('GET', '/v1/auth/me', { token: rotated.data.token })).status).toBe(401);
  });

  it('locks out after five failures, counted in the database', async () => {
    const account = await registerAndSignIn(app);
    for (let attempt = 0; attempt < 5; attempt++) {
      await app.call('POST', '/v1/auth/login', {
        body: { email: account.email, password: 'wrong password' },
      });
    }
    const locked = await app.call('POST', '/v1/auth/login', {
      body: { email: account.email, password: PASSWORD },
    });
    expect(locked.status).toBe(429);
    expect((await flatError(locked)).retry_after).toBe(900);
  });

  it('runs two-factor and API keys', async () => {
    const account = await registerAndSignIn(app);
    const setup = await enveloped<{ secret: string }>(
      await app.call('POST', '/v1/auth/2fa/enable', { token: account.token }),
    );
    const code = totpCode(app, setup.data.secret);
    expect(
      (await app.call('POST', '/v1/auth/2fa/confirm', { token: account.token, body: { code } })).status,
    ).toBe(200);
    expect((await app.call('DELETE', '/v1/auth/2fa', { token: account.token, body: { code } })).status).toBe(
      400,
    );
    const created = await enveloped<{ key: string }>(
      await app.call('POST', '/v1/auth/api-keys', {
        token: account.token,
        body: { name: 'pg', scopes: ['vault:read'] },
      }),
    );
    const probe = await app.call('GET', '/api/v1/vault/probe', {
      headers: { 'x-api-key': created.data.key },
    });
    expect(probe.status).toBe(200);
  });
});
