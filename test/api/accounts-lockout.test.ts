import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, registerAndSignIn, totpCode } from '../fixtures/accounts-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';
import { enveloped, flatError } from '../fixtures/api-bodies.js';

let app: TestPlatform;

beforeAll(async () => {
  // The address limit is tested on its own below; here it must not interfere.
  app = await startPlatform({ env: { CLOUDPLANE_LOGIN_MAX_FAILURES_PER_ADDRESS: '1000' } });
});
afterAll(async () => {
  await app.close();
});

function login(email: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  return app.call('POST', '/v1/auth/login', { body: { email, password }, headers });
}

async function failTimes(email: string, times: number): Promise<void> {
  for (let attempt = 0; attempt < times; attempt++) {
    expect((await login(email, 'not the password')).status).toBe(401);
  }
}

async function expectLockedOut(response: Response, retryAfter = 900): Promise<void> {
  expect(response.status).toBe(429);
  expect(response.headers.get('retry-after')).toBe(String(retryAfter));
  expect(await flatError(response)).toEqual({
    error: 'rate_limited',
    message: 'too many failed login attempts; try again in 15 minutes',
    retry_after: retryAfter,
  });
}

describe('account lock-out', () => {
  it('answers the sixth bad login with 429 and retry_after 900', async () => {
    const account = await registerAndSignIn(app);
    await failTimes(account.email, 5);
    await expectLockedOut(await login(account.email, 'not the password'));
  });

  it('refuses the right password while locked, and accepts it once the window has passed', async () => {
    const account = await registerAndSignIn(app);
    await failTimes(account.email, 5);
    await expectLockedOut(await login(account.email, PASSWORD));
    await app.clock.advance(14 * 60 * 1000);
    const later = await login(account.email, PASSWORD);
    expect(later.status).toBe(429);
    expect((await flatError(later)).retry_after).toBe(60);
    await app.clock.advance(60 * 1000);
    expect((await login(account.email, PASSWORD)).status).toBe(200);
  });

  it('forgets failures older than the window', async () => {
    const account = await registerAndSignIn(app);
    await failTimes(account.email, 4);
    await app.clock.advance(15 * 60 * 1000 + 1000);
    await failTimes(account.email, 4);
    expect((await login(account.email, PASSWORD)).status).toBe(200);
  });

  it('locks unknown e-mails the same way, so probing tells nothing', async () => {
    await failTimes('ghost@example.com', 5);
    await expectLockedOut(await login('ghost@example.com', PASSWORD));
  });

  it('counts wrong second-factor codes and voids pending challenges when it locks', async () => {
    const account = await registerAndSignIn(app);
    const { data: setup } = await enveloped<{ secret: string }>(
      await app.call('POST', '/v1/auth/2fa/enable', { token: account.token }),
    );
    await app.call('POST', '/v1/auth/2fa/confirm', {
      token: account.token,
      body: { code: totpCode(app, setup.secret) },
    });
    await app.clock.advance(30_000);
    const challenged = await login(account.email, PASSWORD);
    const sessionToken = (await flatError(challenged)).session_token as string;
    for (let attempt = 0; attempt < 5; attempt++) {
      const wrong = await app.call('POST', '/v1/auth/2fa/verify', {
        body: { code: '000000', session_token: sessionToken },
      });
      expect(wrong.status).toBe(401);
    }
    const voided = await app.call('POST', '/v1/auth/2fa/verify', {
      body: { code: totpCode(app, setup.secret), session_token: sessionToken },
    });
    expect(voided.status).toBe(401);
    expect((await flatError(voided)).error).toBe('invalid_session_token');
    await expectLockedOut(await login(account.email, PASSWORD));
  });

  it('logs every lock-out as a warning with the user id and never the password', async () => {
    const account = await registerAndSignIn(app);
    await failTimes(account.email, 5);
    const lockouts = app.logLines.filter(
      (line) => line.securityEvent === 'login_lockout' && line.userId === account.id,
    );
    expect(lockouts).toEqual([
      expect.objectContaining({ level: 40, msg: 'account locked out after repeated failed logins' }),
    ]);
    expect(JSON.stringify(app.logLines)).not.toContain('not the password');
  });

  it('keeps the counts in the database, where every replica reads them', async () => {
    const account = await registerAndSignIn(app);
    await failTimes(account.email, 5);
    const lock = await app.database.kysely
      .selectFrom('login_lockouts')
      .selectAll()
      .where('subject', '=', `account:${account.email}`)
      .executeTakeFirst();
    expect(lock?.locked_until).toBe(new Date(app.clock.now().getTime() + 900_000).toISOString());
  });
});

describe('client address lock-out', () => {
  it('locks an address after its failures across many accounts', async () => {
    const limited = await startPlatform({
      env: { CLOUDPLANE_LOGIN_MAX_FAILURES_PER_ADDRESS: '3', CLOUDPLANE_LOGIN_LOCKOUT_SECONDS: '600' },
    });
    try {
      for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
        const response = await limited.call('POST', '/v1/auth/login', {
          body: { email, password: 'wrong password' },
        });
        expect(response.status).toBe(401);
      }
      const response = await limited.call('POST', '/v1/auth/login', {
        body: { email: 'd@example.com', password: 'wrong password' },
      });
      expect(response.status).toBe(429);
      expect(await flatError(response)).toEqual({
        error: 'rate_limited',
        message: 'too many failed login attempts; try again in 10 minutes',
        retry_after: 600,
      });
    } finally {
      await limited.close();
    }
  });
});
