import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  mailedToken,
  PASSWORD,
  registerAndSignIn,
  totpCode,
  type TestAccount,
} from '../fixtures/accounts-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';
import { enveloped, flatError } from '../fixtures/api-bodies.js';

let app: TestPlatform;

beforeAll(async () => {
  app = await startPlatform();
});
afterAll(async () => {
  await app.close();
});

interface Setup {
  secret: string;
  qr_code_url: string;
  backup_codes: string[];
}

async function enable(account: TestAccount): Promise<Setup> {
  const response = await app.call('POST', '/v1/auth/2fa/enable', { token: account.token });
  expect(response.status).toBe(200);
  return (await enveloped<Setup>(response)).data;
}

/** An account with two-factor on; the clock is moved a period on so the confirming code is spent history. */
async function accountWithTwoFactor(): Promise<{ account: TestAccount; setup: Setup }> {
  const account = await registerAndSignIn(app);
  const setup = await enable(account);
  const confirm = await app.call('POST', '/v1/auth/2fa/confirm', {
    token: account.token,
    body: { code: totpCode(app, setup.secret) },
  });
  expect(confirm.status).toBe(200);
  await app.clock.advance(30_000);
  return { account, setup };
}

async function challenge(account: TestAccount): Promise<string> {
  const response = await app.call('POST', '/v1/auth/login', {
    body: { email: account.email, password: PASSWORD },
  });
  expect(response.status).toBe(403);
  const body = await flatError(response);
  expect(body).toEqual({
    error: '2fa_required',
    message: expect.stringContaining('two-factor authentication is required'),
    session_token: expect.stringMatching(/^cp2fa_/),
  });
  return body.session_token as string;
}

function verify(code: string, sessionToken: string): Promise<Response> {
  return app.call('POST', '/v1/auth/2fa/verify', { body: { code, session_token: sessionToken } });
}

describe('two-factor setup', () => {
  it('issues a base32 secret, a PNG QR code and ten backup codes, and stays off until confirmed', async () => {
    const account = await registerAndSignIn(app);
    const setup = await enable(account);
    expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(setup.qr_code_url).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    expect(setup.backup_codes).toHaveLength(10);
    expect(new Set(setup.backup_codes).size).toBe(10);
    const me = await enveloped<{ two_factor_enabled: boolean }>(
      await app.call('GET', '/v1/auth/me', { token: account.token }),
    );
    expect(me.data.two_factor_enabled).toBe(false);
    const login = await app.call('POST', '/v1/auth/login', {
      body: { email: account.email, password: PASSWORD },
    });
    expect(login.status).toBe(200);
  });

  it('keeps the secret sealed at rest, bound to the user', async () => {
    const account = await registerAndSignIn(app);
    const setup = await enable(account);
    const row = await app.database.kysely
      .selectFrom('users')
      .select('totp_secret')
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow();
    expect(row.totp_secret).toMatch(/^v1:/);
    expect(row.totp_secret).not.toContain(setup.secret);
    const codes = await app.database.kysely
      .selectFrom('backup_codes')
      .select('code_hash')
      .where('user_id', '=', account.id)
      .execute();
    expect(codes.map((code) => code.code_hash)).not.toContain(setup.backup_codes[0]);
  });

  it('turns on with a code from the app and answers two_factor_enabled', async () => {
    const account = await registerAndSignIn(app);
    const setup = await enable(account);
    const response = await app.call('POST', '/v1/auth/2fa/confirm', {
      token: account.token,
      body: { code: totpCode(app, setup.secret) },
    });
    expect(response.status).toBe(200);
    expect((await enveloped(response)).data).toEqual({ two_factor_enabled: true });
  });

  it.each([
    ['a wrong code', '000000'],
    ['a code from two periods ago', 'past'],
  ])('refuses to confirm with %s (400 invalid_code)', async (_case, code) => {
    const account = await registerAndSignIn(app);
    const setup = await enable(account);
    const sent = code === 'past' ? totpCode(app, setup.secret, -2) : code;
    const response = await app.call('POST', '/v1/auth/2fa/confirm', {
      token: account.token,
      body: { code: sent },
    });
    expect(response.status).toBe(400);
    expect(await flatError(response)).toEqual({ error: 'invalid_code', message: 'the code is not valid' });
  });

  it('answers 409 to confirm before enable, and to enable when already on', async () => {
    const account = await registerAndSignIn(app);
    const early = await app.call('POST', '/v1/auth/2fa/confirm', {
      token: account.token,
      body: { code: '123456' },
    });
    expect(early.status).toBe(409);
    expect((await flatError(early)).error).toBe('two_factor_not_pending');
    const { account: enabled } = await accountWithTwoFactor();
    const again = await app.call('POST', '/v1/auth/2fa/enable', { token: enabled.token });
    expect(again.status).toBe(409);
    expect((await flatError(again)).error).toBe('two_factor_already_enabled');
  });
});

describe('login with two-factor', () => {
  it('answers 403 2fa_required, then the token result for the code', async () => {
    const { account, setup } = await accountWithTwoFactor();
    const sessionToken = await challenge(account);
    const response = await verify(totpCode(app, setup.secret), sessionToken);
    expect(response.status).toBe(200);
    const { data } = await enveloped<Record<string, string>>(response);
    expect(data).toEqual({
      token: expect.any(String),
      expires_at: expect.any(String),
      refresh_token: expect.stringMatching(/^cprt_/),
    });
    expect((await app.call('GET', '/v1/auth/me', { token: data.token! })).status).toBe(200);
  });

  it('never accepts the same TOTP code twice', async () => {
    const { account, setup } = await accountWithTwoFactor();
    const code = totpCode(app, setup.secret);
    expect((await verify(code, await challenge(account))).status).toBe(200);
    const again = await verify(code, await challenge(account));
    expect(again.status).toBe(401);
    expect(await flatError(again)).toEqual({ error: 'invalid_code', message: 'the code is not valid' });
  });

  it('refuses a code of an earlier period once a later one was used', async () => {
    const { account, setup } = await accountWithTwoFactor();
    expect((await verify(totpCode(app, setup.secret, 1), await challenge(account))).status).toBe(200);
    expect((await verify(totpCode(app, setup.secret), await challenge(account))).status).toBe(401);
  });

  it('accepts each backup code once', async () => {
    const { account, setup } = await accountWithTwoFactor();
    const code = setup.backup_codes[3]!;
    expect((await verify(code.toUpperCase(), await challenge(account))).status).toBe(200);
    const again = await verify(code, await challenge(account));
    expect(again.status).toBe(401);
    expect((await flatError(again)).error).toBe('invalid_code');
  });

  it('spends the challenge on success: the session_token works once', async () => {
    const { account, setup } = await accountWithTwoFactor();
    const sessionToken = await challenge(account);
    expect((await verify(setup.backup_codes[0]!, sessionToken)).status).toBe(200);
    const again = await verify(setup.backup_codes[1]!, sessionToken);
    expect(again.status).toBe(401);
    expect(await flatError(again)).toEqual({
      error: 'invalid_session_token',
      message: 'the session_token is invalid or expired; sign in again',
    });
  });

  it('lets the challenge expire after five minutes', async () => {
    const { account, setup } = await accountWithTwoFactor();
    const first = await challenge(account);
    const second = await challenge(account);
    await app.clock.advance(4 * 60 * 1000 + 59_000);
    expect((await verify(setup.backup_codes[0]!, first)).status).toBe(200);
    await app.clock.advance(2000);
    const expired = await verify(setup.backup_codes[1]!, second);
    expect(expired.status).toBe(401);
    expect((await flatError(expired)).error).toBe('invalid_session_token');
  });

  it('asks for the second factor after e-mail verification too', async () => {
    const { account, setup } = await accountWithTwoFactor();
    const response = await app.call('POST', '/v1/auth/verify-email', {
      body: { token: mailedToken(app, account.email, 'verify-email') },
    });
    expect(response.status).toBe(403);
    const sessionToken = (await flatError(response)).session_token as string;
    expect((await verify(totpCode(app, setup.secret), sessionToken)).status).toBe(200);
  });
});

describe('DELETE /v1/auth/2fa', () => {
  it.each([
    ['a TOTP code', (setup: Setup) => totpCode(app, setup.secret)],
    ['a backup code', (setup: Setup) => setup.backup_codes[9]!],
  ])('turns two-factor off with %s', async (_case, code) => {
    const { account, setup } = await accountWithTwoFactor();
    const response = await app.call('DELETE', '/v1/auth/2fa', {
      token: account.token,
      body: { code: code(setup) },
    });
    expect(response.status).toBe(204);
    const login = await app.call('POST', '/v1/auth/login', {
      body: { email: account.email, password: PASSWORD },
    });
    expect(login.status).toBe(200);
  });

  it('answers 400 invalid_code for a wrong code and 409 when two-factor is off', async () => {
    const { account } = await accountWithTwoFactor();
    const wrong = await app.call('DELETE', '/v1/auth/2fa', {
      token: account.token,
      body: { code: '999999' },
    });
    expect(wrong.status).toBe(400);
    expect((await flatError(wrong)).error).toBe('invalid_code');
    const plain = await registerAndSignIn(app);
    const off = await app.call('DELETE', '/v1/auth/2fa', { token: plain.token, body: { code: '123456' } });
    expect(off.status).toBe(409);
    expect((await flatError(off)).error).toBe('two_factor_not_enabled');
  });

  it('answers 400 naming code when it is missing', async () => {
    const account = await registerAndSignIn(app);
    const response = await app.call('DELETE', '/v1/auth/2fa', { token: account.token, body: {} });
    expect(response.status).toBe(400);
    expect((await flatError(response)).message).toContain('code is required');
  });
});
