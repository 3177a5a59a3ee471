import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWASP_SCRYPT_COST, hashPassword } from '../../accounts/passwords.js';
import { createUser } from '../../accounts/users.js';
import { mailedToken, PASSWORD, readOutbox, totpCode } from '../fixtures/accounts-app.js';
import { startPlatform, TEST_PASSWORD_COST, type TestPlatform } from '../fixtures/platform.js';
import { SCOPE_PROBE_ROUTES } from '../fixtures/accounts-probe-routes.js';
import { enveloped, flatError } from '../fixtures/api-bodies.js';
import { eventually } from '../fixtures/eventually.js';

let app: TestPlatform;

beforeAll(async () => {
  app = await startPlatform({ extraRoutes: [SCOPE_PROBE_ROUTES], passwordCost: OWASP_SCRYPT_COST });
});
afterAll(async () => {
  await app.close();
});

async function data<T = Record<string, unknown>>(response: Response, status = 200): Promise<T> {
  expect(response.status).toBe(status);
  return (await enveloped<T>(response)).data;
}

describe('passwords at OWASP cost', () => {
  it('stores scrypt N=2^17, r=8, p=1 hashes and upgrades weaker ones at login', async () => {
    const weak = await createUser(
      app.database,
      {
        email: 'legacy@example.com',
        name: 'Legacy',
        passwordHash: await hashPassword(PASSWORD, TEST_PASSWORD_COST),
        emailVerified: true,
      },
      app.clock.now(),
    );
    const hashOf = async () =>
      (
        await app.database.kysely
          .selectFrom('users')
          .select('password_hash')
          .where('id', '=', weak.id)
          .executeTakeFirstOrThrow()
      ).password_hash;
    expect(await hashOf()).toMatch(/^scrypt\$4096\$8\$1\$/);
    await data(
      await app.call('POST', '/v1/auth/login', { body: { email: 'legacy@example.com', password: PASSWORD } }),
    );
    expect(await hashOf()).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{86}==$/);
    await data(
      await app.call('POST', '/v1/auth/login', { body: { email: 'legacy@example.com', password: PASSWORD } }),
    );
  });
});

describe('logs', () => {
  it('carry no password, token, code or key through a whole account lifecycle', async () => {
    const secrets: string[] = [];
    const keep = <T extends string>(value: T): T => {
      secrets.push(value);
      return value;
    };
    const email = 'lifecycle@example.com';
    const password = keep('lifecycle passphrase one');
    await data(
      await app.call('POST', '/v1/auth/register', { body: { email, password, name: 'Life Cycle' } }),
      201,
    );
    const verified = await data<{ token: string; refresh_token: string }>(
      await app.call('POST', '/v1/auth/verify-email', {
        body: { token: keep(mailedToken(app, email, 'verify-email')) },
      }),
    );
    keep(verified.token);
    keep(verified.refresh_token);
    const refreshed = await data<{ token: string; refresh_token: string }>(
      await app.call('POST', '/v1/auth/refresh', { body: { refresh_token: verified.refresh_token } }),
    );
    const token = keep(refreshed.token);
    keep(refreshed.refresh_token);
    const setup = await data<{ secret: string; backup_codes: string[] }>(
      await app.call('POST', '/v1/auth/2fa/enable', { token }),
    );
    keep(setup.secret);
    setup.backup_codes.forEach(keep);
    await data(
      await app.call('POST', '/v1/auth/2fa/confirm', {
        token,
        body: { code: keep(totpCode(app, setup.secret)) },
      }),
    );
    await app.call('POST', '/v1/auth/login', { body: { email, password: keep('a wrong guess at it') } });
    const challenged = await app.call('POST', '/v1/auth/login', { body: { email, password } });
    const sessionToken = keep((await flatError(challenged)).session_token as string);
    const signedIn = await data<{ token: string; refresh_token: string }>(
      await app.call('POST', '/v1/auth/2fa/verify', {
        body: { code: setup.backup_codes[0], session_token: sessionToken },
      }),
    );
    keep(signedIn.token);
    keep(signedIn.refresh_token);
    const { key } = await data<{ key: string }>(
      await app.call('POST', '/v1/auth/api-keys', { token, body: { name: 'ci', scopes: ['vault:read'] } }),
      201,
    );
    keep(key);
    await data(await app.call('GET', '/api/v1/vault/probe', { headers: { 'x-api-key': key } }));
    const newPassword = keep('lifecycle passphrase two');
    await data(
      await app.call('POST', '/v1/auth/change-password', {
        token,
        body: { current_password: password, new_password: newPassword },
      }),
    );
    await data(await app.call('POST', '/v1/auth/forgot-password', { body: { email } }));
    await eventually(() =>
      expect(readOutbox(app).filter((mail) => mail.subject.includes('Reset'))).toHaveLength(1),
    );
    const resetToken = keep(mailedToken(app, email, 'reset-password'));
    await data(
      await app.call('POST', '/v1/auth/reset-password', {
        body: { token: resetToken, password: keep('lifecycle passphrase three') },
      }),
    );
    await app.call('POST', '/v1/auth/refresh', { body: { refresh_token: refreshed.refresh_token } });

    const logged = JSON.stringify(app.logLines);
    expect(app.logLines.length).toBeGreaterThan(20);
    for (const secret of secrets) expect(logged).not.toContain(secret);
    for (const jwt of [verified.token, refreshed.token, signedIn.token]) {
      expect(logged).not.toContain(jwt.split('.')[2]);
    }
  });
});
