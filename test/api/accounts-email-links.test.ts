import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  mailedToken,
  mailedTokens,
  PASSWORD,
  readOutbox,
  registerAndSignIn,
  signIn,
} from '../fixtures/accounts-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';
import { enveloped, flatError } from '../fixtures/api-bodies.js';
import { eventually } from '../fixtures/eventually.js';

let app: TestPlatform;

beforeAll(async () => {
  app = await startPlatform();
});
afterAll(async () => {
  await app.close();
});

const NEW_PASSWORD = 'a brand new passphrase';

function verifyEmail(token: string): Promise<Response> {
  return app.call('POST', '/v1/auth/verify-email', { body: { token } });
}

function resetPassword(token: string, password = NEW_PASSWORD): Promise<Response> {
  return app.call('POST', '/v1/auth/reset-password', { body: { token, password } });
}

/**
 * Asks for a reset link and answers its token. The mail is sent in the background, so it is
 * recognised as the token this recipient had not received before, not as the newest file.
 */
async function requestReset(email: string): Promise<string> {
  const known = new Set(mailedTokens(app, email, 'reset-password'));
  const response = await app.call('POST', '/v1/auth/forgot-password', { body: { email } });
  expect(response.status).toBe(200);
  return eventually(() => {
    const fresh = mailedTokens(app, email, 'reset-password').filter((token) => !known.has(token));
    expect(fresh).toHaveLength(1);
    return fresh[0]!;
  });
}

describe('the outbox', () => {
  it('holds a real RFC 5322 message per e-mail, readable only by the platform', async () => {
    const account = await registerAndSignIn(app);
    const [mail] = readOutbox(app).filter((message) => message.to === account.email);
    expect(mail!.file).toMatch(/outbox\/\d{8}T\d{9}Z-\d{6}-[a-z2-7]{8}\.eml$/);
    expect(mail!.raw).toMatch(/^From: cloudplane <no-reply@localhost>\r$/m);
    expect(mail!.raw).toMatch(/^Message-ID: <.+>\r$/m);
    expect(mail!.raw).toMatch(/^Date: .+\r$/m);
    expect(mail!.subject).toBe('Verify your e-mail address for cloudplane');
    expect(fs.statSync(mail!.file).mode & 0o777).toBe(0o600);
  });

  it('says in the log that a message was written, without its link', async () => {
    const account = await registerAndSignIn(app);
    const token = mailedToken(app, account.email, 'verify-email');
    const written = app.logLines.filter(
      (line) => line.msg === 'mail written to the outbox (no SMTP server configured)',
    );
    expect(written.length).toBeGreaterThan(0);
    expect(JSON.stringify(app.logLines)).not.toContain(token);
  });
});

describe('POST /v1/auth/verify-email', () => {
  it('marks the address verified and answers a token result', async () => {
    const account = await registerAndSignIn(app);
    const response = await verifyEmail(mailedToken(app, account.email, 'verify-email'));
    expect(response.status).toBe(200);
    const { data } = await enveloped<Record<string, string>>(response);
    expect(data).toEqual({
      message: 'E-mail address verified.',
      token: expect.any(String),
      expires_at: expect.any(String),
      refresh_token: expect.stringMatching(/^cprt_/),
    });
    const me = await enveloped<{ email_verified: boolean }>(
      await app.call('GET', '/v1/auth/me', { token: data.token }),
    );
    expect(me.data.email_verified).toBe(true);
  });

  it('works once', async () => {
    const account = await registerAndSignIn(app);
    const token = mailedToken(app, account.email, 'verify-email');
    expect((await verifyEmail(token)).status).toBe(200);
    const again = await verifyEmail(token);
    expect(again.status).toBe(400);
    expect(await flatError(again)).toEqual({
      error: 'invalid_token',
      message: 'the verification token is invalid, used or expired',
    });
  });

  it('expires after 24 hours', async () => {
    const account = await registerAndSignIn(app);
    const token = mailedToken(app, account.email, 'verify-email');
    await app.clock.advance(24 * 60 * 60 * 1000 + 1000);
    expect((await verifyEmail(token)).status).toBe(400);
  });

  it('refuses a reset token in place of a verification token', async () => {
    const account = await registerAndSignIn(app);
    expect((await verifyEmail(await requestReset(account.email))).status).toBe(400);
  });
});

describe('forgot and reset password', () => {
  it('answers the same for known and unknown addresses, mailing only the known one', async () => {
    const account = await registerAndSignIn(app);
    const known = await app.call('POST', '/v1/auth/forgot-password', { body: { email: account.email } });
    const unknown = await app.call('POST', '/v1/auth/forgot-password', {
      body: { email: 'nobody@example.com' },
    });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    const knownBody = (await enveloped(known)).data;
    expect((await enveloped(unknown)).data).toEqual(knownBody);
    expect(knownBody).toEqual({
      message: 'If an account exists for that e-mail address, a link to reset its password has been sent.',
    });
    await eventually(() =>
      expect(mailedToken(app, account.email, 'reset-password')).toEqual(expect.any(String)),
    );
    expect(readOutbox(app).filter((mail) => mail.to === 'nobody@example.com')).toEqual([]);
  });

  it('sets the new password, ends every session and verifies the address', async () => {
    const account = await registerAndSignIn(app);
    const response = await resetPassword(await requestReset(account.email));
    expect(response.status).toBe(200);
    expect((await enveloped(response)).data).toEqual({
      message: 'Password changed. Sign in with the new password.',
    });
    expect((await app.call('GET', '/v1/auth/me', { token: account.token })).status).toBe(401);
    expect(
      (await app.call('POST', '/v1/auth/login', { body: { email: account.email, password: PASSWORD } }))
        .status,
    ).toBe(401);
    const { token } = await signIn(app, account.email, NEW_PASSWORD);
    const me = await enveloped<{ email_verified: boolean }>(await app.call('GET', '/v1/auth/me', { token }));
    expect(me.data.email_verified).toBe(true);
  });

  it('works once', async () => {
    const account = await registerAndSignIn(app);
    const token = await requestReset(account.email);
    expect((await resetPassword(token)).status).toBe(200);
    const again = await resetPassword(token, 'yet another passphrase');
    expect(again.status).toBe(400);
    expect(await flatError(again)).toEqual({
      error: 'invalid_token',
      message: 'the reset token is invalid, used or expired',
    });
  });

  it('expires after one hour', async () => {
    const account = await registerAndSignIn(app);
    const token = await requestReset(account.email);
    await app.clock.advance(60 * 60 * 1000 + 1000);
    expect((await resetPassword(token)).status).toBe(400);
  });

  it('voids older reset links when a new one is requested', async () => {
    const account = await registerAndSignIn(app);
    const older = await requestReset(account.email);
    const newer = await requestReset(account.email);
    expect((await resetPassword(older)).status).toBe(400);
    expect((await resetPassword(newer)).status).toBe(200);
  });

  it('refuses a password outside the policy without spending the token', async () => {
    const account = await registerAndSignIn(app);
    const token = await requestReset(account.email);
    const short = await resetPassword(token, 'short');
    expect(short.status).toBe(400);
    expect((await flatError(short)).message).toBe('password must be 8 to 256 characters long, got 5');
    expect((await resetPassword(token)).status).toBe(200);
  });

  it('lifts a lock-out, since the link proves the mailbox', async () => {
    const account = await registerAndSignIn(app);
    for (let attempt = 0; attempt < 5; attempt++) {
      await app.call('POST', '/v1/auth/login', {
        body: { email: account.email, password: 'wrong password' },
      });
    }
    expect(
      (await app.call('POST', '/v1/auth/login', { body: { email: account.email, password: PASSWORD } }))
        .status,
    ).toBe(429);
    expect((await resetPassword(await requestReset(account.email))).status).toBe(200);
    expect(
      (await app.call('POST', '/v1/auth/login', { body: { email: account.email, password: NEW_PASSWORD } }))
        .status,
    ).toBe(200);
  });
});

describe('POST /v1/auth/change-password', () => {
  it('changes the password and ends every other session, keeping the current one', async () => {
    const account = await registerAndSignIn(app);
    const other = await signIn(app, account.email, PASSWORD);
    const response = await app.call('POST', '/v1/auth/change-password', {
      token: account.token,
      body: { current_password: PASSWORD, new_password: NEW_PASSWORD },
    });
    expect(response.status).toBe(200);
    expect((await enveloped(response)).data).toEqual({
      message: 'Password changed. Other sessions have been signed out.',
    });
    expect((await app.call('GET', '/v1/auth/me', { token: other.token })).status).toBe(401);
    expect(
      (await app.call('POST', '/v1/auth/refresh', { body: { refresh_token: other.refreshToken } })).status,
    ).toBe(401);
    expect((await app.call('GET', '/v1/auth/me', { token: account.token })).status).toBe(200);
    await signIn(app, account.email, NEW_PASSWORD);
  });

  it.each([
    [
      { current_password: 'wrong password', new_password: NEW_PASSWORD },
      'invalid_current_password',
      'current_password is wrong',
    ],
    [
      { current_password: PASSWORD, new_password: 'short' },
      'invalid_request',
      'new_password must be 8 to 256 characters long, got 5',
    ],
    [{ current_password: PASSWORD }, 'invalid_request', 'invalid request: new_password is required'],
  ])('answers 400 for %j', async (body, error, message) => {
    const account = await registerAndSignIn(app);
    const response = await app.call('POST', '/v1/auth/change-password', { token: account.token, body });
    expect(response.status).toBe(400);
    const answer = await flatError(response);
    expect(answer.error).toBe(error);
    expect(answer.message).toContain(message);
  });
});
