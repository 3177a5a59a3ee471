import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, signIn } from '../fixtures/accounts-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';
import { startSmtpServer, type ReceivedMail, type SmtpTestServer } from '../fixtures/accounts-smtp-server.js';
import { enveloped } from '../fixtures/api-bodies.js';
import { eventually } from '../fixtures/eventually.js';

const SMTP_USER = 'cloudplane-mailer';
/** Characters a URL must percent-encode, so the test also covers how the URL is decoded. */
const SMTP_PASSWORD = 'smtp p@ss:w/rd%7';
const MAIL_FROM = 'Cloudplane Accounts <accounts@cloudplane.test>';
const NEW_PASSWORD = 'a brand new passphrase';

let smtp: SmtpTestServer;

beforeAll(async () => {
  smtp = await startSmtpServer({ username: SMTP_USER, password: SMTP_PASSWORD });
});
afterAll(async () => {
  await smtp.close();
});

let accountCounter = 0;

function freshEmail(): string {
  accountCounter += 1;
  return `smtp${accountCounter}-${Date.now()}@example.com`;
}

function startApp(smtpUrl: string): Promise<TestPlatform> {
  return startPlatform({ env: { CLOUDPLANE_SMTP_URL: smtpUrl, CLOUDPLANE_MAIL_FROM: MAIL_FROM } });
}

async function register(app: TestPlatform, email: string): Promise<Response> {
  return app.call('POST', '/v1/auth/register', { body: { email, password: PASSWORD, name: 'Grace Hopper' } });
}

async function mailTo(to: string, page: 'verify-email' | 'reset-password'): Promise<ReceivedMail> {
  return eventually(() => {
    const mail = smtp.messages.findLast(
      (message) => message.envelopeTo.includes(to) && message.text.includes(`/${page}?token=`),
    );
    expect(mail).toBeDefined();
    return mail!;
  });
}

function linkedToken(app: TestPlatform, mail: ReceivedMail, page: 'verify-email' | 'reset-password'): string {
  const escapedBase = app.config.http.publicUrl.href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const token = new RegExp(`^${escapedBase}/${page}\\?token=([A-Za-z0-9_%-]+)$`, 'm').exec(mail.text)?.[1];
  if (!token) throw new Error(`no ${page} link in:\n${mail.text}`);
  return decodeURIComponent(token);
}

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

describe('with CLOUDPLANE_SMTP_URL', () => {
  let app: TestPlatform;

  beforeAll(async () => {
    app = await startApp(smtp.url);
  });
  afterAll(async () => {
    await app.close();
  });

  it('delivers the verification e-mail over SMTP, signed in as the URL user, from CLOUDPLANE_MAIL_FROM', async () => {
    const email = freshEmail();
    expect((await register(app, email)).status).toBe(201);
    const mail = await mailTo(email, 'verify-email');
    expect(mail.user).toBe(SMTP_USER);
    expect(mail.envelopeFrom).toBe('accounts@cloudplane.test');
    expect(mail.envelopeTo).toEqual([email]);
    expect(mail.header('From')).toBe(MAIL_FROM);
    expect(mail.header('To')).toBe(email);
    expect(mail.header('Subject')).toBe('Verify your e-mail address for cloudplane');
    expect(mail.header('Message-ID')).toMatch(/^<.+>$/);
    expect(mail.header('Date')).not.toBe('');
    expect(mail.text).toContain('Welcome to cloudplane.');
  });

  it('mails a verification link whose token verifies the address', async () => {
    const email = freshEmail();
    await register(app, email);
    const token = linkedToken(app, await mailTo(email, 'verify-email'), 'verify-email');
    expect(token).toMatch(/^cpev_/);
    const verified = await app.call('POST', '/v1/auth/verify-email', { body: { token } });
    expect(verified.status).toBe(200);
    const { data } = await enveloped<{ token: string }>(verified);
    const me = await enveloped<{ email: string; email_verified: boolean }>(
      await app.call('GET', '/v1/auth/me', { token: data.token }),
    );
    expect(me.data).toMatchObject({ email, email_verified: true });
  });

  it('mails a password reset link that sets the new password', async () => {
    const email = freshEmail();
    await register(app, email);
    const forgot = await app.call('POST', '/v1/auth/forgot-password', { body: { email } });
    expect(forgot.status).toBe(200);
    const mail = await mailTo(email, 'reset-password');
    expect(mail.header('Subject')).toBe('Reset your cloudplane password');
    expect(mail.header('From')).toBe(MAIL_FROM);
    const token = linkedToken(app, mail, 'reset-password');
    expect(token).toMatch(/^cppr_/);
    const reset = await app.call('POST', '/v1/auth/reset-password', {
      body: { token, password: NEW_PASSWORD },
    });
    expect(reset.status).toBe(200);
    await signIn(app, email, NEW_PASSWORD);
  });

  it('writes nothing to the outbox', async () => {
    const email = freshEmail();
    await register(app, email);
    await mailTo(email, 'verify-email');
    expect(fs.existsSync(app.config.mail.outboxDir)).toBe(false);
  });

  it('logs each message sent by subject, without its link or the SMTP password', async () => {
    const email = freshEmail();
    await register(app, email);
    const token = linkedToken(app, await mailTo(email, 'verify-email'), 'verify-email');
    expect(app.logLines).toContainEqual(
      expect.objectContaining({ msg: 'mail sent', subject: 'Verify your e-mail address for cloudplane' }),
    );
    const logs = JSON.stringify(app.logLines);
    expect(logs).not.toContain(token);
    expect(logs).not.toContain(SMTP_PASSWORD);
    expect(logs).not.toContain(encodeURIComponent(SMTP_PASSWORD));
  });
});

describe.each([
  {
    failure: 'the SMTP server refuses the credentials',
    password: 'wrong smtp password',
    url: (password: string) =>
      `smtp://${SMTP_USER}:${encodeURIComponent(password)}@${smtp.host}:${smtp.port}`,
    error: /535|invalid login/i,
    refusedLogins: 1,
  },
  {
    failure: 'the SMTP server is unreachable',
    password: 'password of a missing server',
    url: async (password: string) =>
      `smtp://${SMTP_USER}:${encodeURIComponent(password)}@127.0.0.1:${await closedPort()}`,
    error: /ECONNREFUSED/,
    refusedLogins: 0,
  },
])('when $failure', ({ password, url, error, refusedLogins }) => {
  let app: TestPlatform;

  beforeAll(async () => {
    app = await startApp(await url(password));
  });
  afterAll(async () => {
    await app.close();
  });

  it('still registers the account (201) and logs the failure without the password or a token', async () => {
    const email = freshEmail();
    const delivered = smtp.messages.length;
    const refused = smtp.refusedLogins;
    const response = await register(app, email);
    expect(response.status).toBe(201);
    await signIn(app, email, PASSWORD);
    const failed = app.logLines.filter((line) => line.msg === 'mail could not be sent');
    expect(failed).toEqual([
      expect.objectContaining({
        subject: 'Verify your e-mail address for cloudplane',
        err: expect.objectContaining({ message: expect.stringMatching(error) }),
      }),
    ]);
    expect(smtp.messages.length).toBe(delivered);
    expect(smtp.refusedLogins - refused).toBe(refusedLogins);
    const logs = JSON.stringify(app.logLines);
    expect(logs).not.toContain(password);
    expect(logs).not.toContain(encodeURIComponent(password));
    expect(logs).not.toMatch(/cpev_|cppr_|token=/);
  });

  it('still answers forgot-password with 200 and logs the failure the same way', async () => {
    const email = freshEmail();
    await register(app, email);
    const before = app.logLines.filter((line) => line.msg === 'mail could not be sent').length;
    const forgot = await app.call('POST', '/v1/auth/forgot-password', { body: { email } });
    expect(forgot.status).toBe(200);
    await eventually(() =>
      expect(app.logLines).toContainEqual(
        expect.objectContaining({ msg: 'mail could not be sent', subject: 'Reset your cloudplane password' }),
      ),
    );
    expect(app.logLines.filter((line) => line.msg === 'mail could not be sent').length).toBe(before + 1);
    const logs = JSON.stringify(app.logLines);
    expect(logs).not.toContain(password);
    expect(logs).not.toMatch(/cpev_|cppr_|token=/);
  });
});
