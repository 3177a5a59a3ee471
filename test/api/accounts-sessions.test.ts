import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { PASSWORD, readOutbox, registerAndSignIn, signIn } from '../fixtures/accounts-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';
import { enveloped, flatError } from '../fixtures/api-bodies.js';

let app: TestPlatform;

beforeAll(async () => {
  app = await startPlatform();
});
afterAll(async () => {
  await app.close();
});

describe('register', () => {
  it('answers 201 with the unverified user and sends the verification e-mail', async () => {
    const response = await app.call('POST', '/v1/auth/register', {
      body: { email: 'Grace.Hopper@Example.com', password: PASSWORD, name: 'Grace Hopper' },
    });
    expect(response.status).toBe(201);
    const { data, meta } = await enveloped<{ user: Record<string, unknown>; message: string }>(response);
    expect(data.user).toEqual({
      id: expect.stringMatching(/^usr_[a-z2-7]{24}$/),
      email: 'grace.hopper@example.com',
      name: 'Grace Hopper',
      email_verified: false,
    });
    expect(data.message).toMatch(/verify/i);
    expect(meta.request_id).toEqual(expect.any(String));
    const mails = readOutbox(app).filter((mail) => mail.to === 'grace.hopper@example.com');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain(`${app.config.http.publicUrl.href}/verify-email?token=`);
  });

  it('answers 409 email_taken for an address in use, whatever its case', async () => {
    const response = await app.call('POST', '/v1/auth/register', {
      body: { email: 'GRACE.HOPPER@example.com', password: PASSWORD, name: 'Someone Else' },
    });
    expect(response.status).toBe(409);
    expect(await flatError(response)).toEqual({
      error: 'email_taken',
      message: 'an account with this e-mail address already exists',
    });
  });

  it.each([
    [{ password: PASSWORD, name: 'No Email' }, 'email is required'],
    [{ email: 'not-an-email', password: PASSWORD, name: 'Bad Email' }, 'email must match format "email"'],
    [
      { email: 'short@example.com', password: 'seven77', name: 'Short' },
      'password must be 8 to 256 characters long, got 7',
    ],
    [
      { email: 'long@example.com', password: 'x'.repeat(257), name: 'Long' },
      'password must be 8 to 256 characters long, got 257',
    ],
    [{ email: 'blank@example.com', password: PASSWORD, name: '   ' }, 'name must match pattern'],
    [
      { email: 'extra@example.com', password: PASSWORD, name: 'Extra', role: 'admin' },
      'role is not an accepted field',
    ],
  ])('answers 400 invalid_request naming the problem for %j', async (body, message) => {
    const response = await app.call('POST', '/v1/auth/register', { body });
    expect(response.status).toBe(400);
    const error = await flatError(response);
    expect(error.error).toBe('invalid_request');
    expect(error.message).toContain(message);
  });

  it('accepts a long passphrase counted in code points', async () => {
    const response = await app.call('POST', '/v1/auth/register', {
      body: { email: 'emoji@example.com', password: '🔐'.repeat(8), name: 'Emoji' },
    });
    expect(response.status).toBe(201);
  });
});

describe('login', () => {
  it('answers the token result with a refresh token and the user', async () => {
    await app.call('POST', '/v1/auth/register', {
      body: { email: 'login@example.com', password: PASSWORD, name: 'Log In' },
    });
    const response = await app.call('POST', '/v1/auth/login', {
      body: { email: 'LOGIN@example.com', password: PASSWORD },
    });
    expect(response.status).toBe(200);
    const { data } = await enveloped<Record<string, unknown>>(response);
    expect(data).toEqual({
      token: expect.any(String),
      expires_at: '2026-03-01T09:15:00.000Z',
      refresh_token: expect.stringMatching(/^cprt_[A-Za-z0-9_-]{43}$/),
      user: { id: expect.stringMatching(/^usr_/), email: 'login@example.com', name: 'Log In' },
    });
    const claims = decodeJwt(data.token as string);
    expect(claims).toMatchObject({
      sub: (data.user as { id: string }).id,
      sid: expect.stringMatching(/^sess_[a-z2-7]{24}$/),
      org: expect.stringMatching(/^org_[a-z2-7]{24}$/),
      iss: app.config.http.publicUrl.href,
      aud: 'cloudplane',
      iat: Date.parse('2026-03-01T09:00:00Z') / 1000,
      exp: Date.parse('2026-03-01T09:15:00Z') / 1000,
    });
  });

  it.each([
    ['a wrong password', 'login@example.com', 'wrong password!'],
    ['an unknown e-mail', 'nobody@example.com', PASSWORD],
  ])('answers 401 invalid_credentials for %s, the same for both', async (_case, email, password) => {
    const response = await app.call('POST', '/v1/auth/login', { body: { email, password } });
    expect(response.status).toBe(401);
    expect(await flatError(response)).toEqual({
      error: 'invalid_credentials',
      message: 'the e-mail address or the password is wrong',
    });
  });
});

describe('access tokens', () => {
  it('serve GET /v1/auth/me with the spec User', async () => {
    const account = await registerAndSignIn(app, 'Alan Turing');
    const response = await app.call('GET', '/v1/auth/me', { token: account.token });
    expect(response.status).toBe(200);
    const { data } = await enveloped<Record<string, unknown>>(response);
    expect(data).toEqual({
      id: account.id,
      email: account.email,
      name: 'Alan Turing',
      avatar_url: null,
      email_verified: false,
      two_factor_enabled: false,
      organizations: [
        { id: expect.stringMatching(/^org_/), name: "Alan Turing's organization", role: 'owner' },
      ],
      current_organization_id: (data.organizations as { id: string }[])[0]!.id,
      created_at: '2026-03-01T09:00:00.000Z',
    });
  });

  it.each([
    ['no credentials', {}, 'unauthorized'],
    ['a forged token', { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' }, 'invalid_token'],
    ['an unknown scheme', { authorization: 'Basic dXNlcjpwYXNz' }, 'invalid_token'],
  ])('answer 401 with %s', async (_case, headers, error) => {
    const response = await app.call('GET', '/v1/auth/me', { headers });
    expect(response.status).toBe(401);
    expect((await flatError(response)).error).toBe(error);
  });

  it('answers 401 once the access token has expired', async () => {
    const account = await registerAndSignIn(app);
    await app.clock.advance(15 * 60 * 1000 + 1000);
    const response = await app.call('GET', '/v1/auth/me', { token: account.token });
    expect(response.status).toBe(401);
    expect(await flatError(response)).toEqual({
      error: 'invalid_token',
      message: 'the access token has expired; refresh it',
    });
  });
});

describe('PATCH /v1/auth/me', () => {
  it('changes name and avatar', async () => {
    const account = await registerAndSignIn(app);
    const response = await app.call('PATCH', '/v1/auth/me', {
      token: account.token,
      body: { name: 'Countess', avatar_url: 'https://cdn.example.com/ada.png' },
    });
    expect(response.status).toBe(200);
    const { data } = await enveloped<Record<string, unknown>>(response);
    expect(data).toEqual({
      id: account.id,
      name: 'Countess',
      avatar_url: 'https://cdn.example.com/ada.png',
      current_organization_id: expect.stringMatching(/^org_/),
    });
  });

  it('answers GET /v1/auth/me with the change on the request right after it', async () => {
    const account = await registerAndSignIn(app);
    const read = async () =>
      (
        await enveloped<Record<string, unknown>>(
          await app.call('GET', '/v1/auth/me', { token: account.token }),
        )
      ).data;
    // Asked twice first, so the second answer is the one kept from the first.
    expect((await read()).name).toBe((await read()).name);
    const changed = await app.call('PATCH', '/v1/auth/me', {
      token: account.token,
      body: { name: 'Countess' },
    });
    expect(changed.status).toBe(200);
    expect((await read()).name).toBe('Countess');
  });

  it.each([
    [{ avatar_url: 'http://cdn.example.com/a.png' }, 'avatar_url must match pattern "^https://"'],
    [{ avatar_url: 'not a url' }, 'avatar_url must match format "uri"'],
    [{}, 'must NOT have fewer than 1 properties'],
    [{ email: 'x@example.com' }, 'email is not an accepted field'],
  ])('answers 400 for %j', async (body, message) => {
    const account = await registerAndSignIn(app);
    const response = await app.call('PATCH', '/v1/auth/me', { token: account.token, body });
    expect(response.status).toBe(400);
    expect((await flatError(response)).message).toContain(message);
  });
});

describe('sessions', () => {
  it('lists the sessions with device, address, location and the current one marked', async () => {
    const account = await registerAndSignIn(app);
    await app.clock.advance(60_000);
    const second = await signIn(app, account.email, PASSWORD);
    const response = await app.call('GET', '/v1/auth/sessions', { token: second.token });
    expect(response.status).toBe(200);
    const { data } = await enveloped<Record<string, unknown>[]>(response);
    expect(data).toHaveLength(2);
    expect(data[0]).toEqual({
      id: decodeJwt(second.token).sid,
      device: 'Firefox on Linux',
      ip_address: expect.stringMatching(/127\.0\.0\.1$/),
      location: 'Local network',
      current: true,
      last_active: app.clock.now().toISOString(),
      created_at: app.clock.now().toISOString(),
    });
    expect(data[1]).toMatchObject({ id: decodeJwt(account.token).sid, current: false });
  });

  it('moves last_active at most once a minute', async () => {
    const account = await registerAndSignIn(app);
    const started = app.clock.now().toISOString();
    const lastActive = async () => {
      const { data } = await enveloped<{ last_active: string }[]>(
        await app.call('GET', '/v1/auth/sessions', { token: account.token }),
      );
      return data[0]!.last_active;
    };
    await app.clock.advance(30_000);
    expect(await lastActive()).toBe(started);
    await app.clock.advance(31_000);
    expect(await lastActive()).toBe(app.clock.now().toISOString());
  });

  it('kills the token at once on logout', async () => {
    const account = await registerAndSignIn(app);
    const logout = await app.call('POST', '/v1/auth/logout', { token: account.token });
    expect(logout.status).toBe(204);
    const response = await app.call('GET', '/v1/auth/me', { token: account.token });
    expect(response.status).toBe(401);
    expect(await flatError(response)).toEqual({
      error: 'invalid_token',
      message: 'the session of this token has ended; sign in again',
    });
    const refresh = await app.call('POST', '/v1/auth/refresh', {
      body: { refresh_token: account.refreshToken },
    });
    expect(refresh.status).toBe(401);
  });

  it('kills a revoked session token at once and answers 404 for a session that is not the caller’s', async () => {
    const account = await registerAndSignIn(app);
    const other = await signIn(app, account.email, PASSWORD);
    const stranger = await registerAndSignIn(app);
    const sid = decodeJwt(other.token).sid as string;

    const foreign = await app.call('DELETE', `/v1/auth/sessions/${sid}`, { token: stranger.token });
    expect(foreign.status).toBe(404);
    expect((await flatError(foreign)).error).toBe('not_found');

    const revoke = await app.call('DELETE', `/v1/auth/sessions/${sid}`, { token: account.token });
    expect(revoke.status).toBe(204);
    expect((await app.call('GET', '/v1/auth/me', { token: other.token })).status).toBe(401);
    expect((await app.call('GET', '/v1/auth/me', { token: account.token })).status).toBe(200);
    expect((await app.call('DELETE', `/v1/auth/sessions/${sid}`, { token: account.token })).status).toBe(404);
  });

  it('revokes every other session and keeps the current one', async () => {
    const account = await registerAndSignIn(app);
    const second = await signIn(app, account.email, PASSWORD);
    const third = await signIn(app, account.email, PASSWORD);
    const response = await app.call('DELETE', '/v1/auth/sessions', { token: third.token });
    expect(response.status).toBe(204);
    expect((await app.call('GET', '/v1/auth/me', { token: account.token })).status).toBe(401);
    expect((await app.call('GET', '/v1/auth/me', { token: second.token })).status).toBe(401);
    expect((await app.call('GET', '/v1/auth/me', { token: third.token })).status).toBe(200);
    const { data } = await enveloped<unknown[]>(
      await app.call('GET', '/v1/auth/sessions', { token: third.token }),
    );
    expect(data).toHaveLength(1);
  });
});

describe('refresh', () => {
  it('rotates: a new access token and a new refresh token each time', async () => {
    const account = await registerAndSignIn(app);
    await app.clock.advance(10 * 60 * 1000);
    const response = await app.call('POST', '/v1/auth/refresh', {
      body: { refresh_token: account.refreshToken },
    });
    expect(response.status).toBe(200);
    const { data } = await enveloped<{ token: string; expires_at: string; refresh_token: string }>(response);
    expect(data.refresh_token).not.toBe(account.refreshToken);
    expect(data.expires_at).toBe(new Date(app.clock.now().getTime() + 15 * 60 * 1000).toISOString());
    expect(decodeJwt(data.token).sid).toBe(decodeJwt(account.token).sid);
    expect((await app.call('GET', '/v1/auth/me', { token: data.token })).status).toBe(200);
  });

  it('revokes the whole family when a spent refresh token is presented again', async () => {
    const account = await registerAndSignIn(app);
    const first = await app.call('POST', '/v1/auth/refresh', {
      body: { refresh_token: account.refreshToken },
    });
    const { data: rotated } = await enveloped<{ token: string; refresh_token: string }>(first);

    const replay = await app.call('POST', '/v1/auth/refresh', {
      body: { refresh_token: account.refreshToken },
    });
    expect(replay.status).toBe(401);
    expect(await flatError(replay)).toEqual({
      error: 'invalid_token',
      message: 'the refresh token was already used; the session has been ended',
    });

    const newer = await app.call('POST', '/v1/auth/refresh', {
      body: { refresh_token: rotated.refresh_token },
    });
    expect(newer.status).toBe(401);
    expect((await app.call('GET', '/v1/auth/me', { token: rotated.token })).status).toBe(401);
    expect(app.logLines).toContainEqual(
      expect.objectContaining({ level: 40, securityEvent: 'refresh_token_reuse', userId: account.id }),
    );
  });

  it('answers 401 invalid_token for an unknown refresh token', async () => {
    const response = await app.call('POST', '/v1/auth/refresh', { body: { refresh_token: 'cprt_unknown' } });
    expect(response.status).toBe(401);
    expect(await flatError(response)).toEqual({
      error: 'invalid_token',
      message: 'the refresh token is invalid or expired',
    });
  });

  it('answers 400 naming refresh_token when it is missing', async () => {
    const response = await app.call('POST', '/v1/auth/refresh', { body: {} });
    expect(response.status).toBe(400);
    expect((await flatError(response)).message).toContain('refresh_token is required');
  });

  it('answers 401 once the refresh token has expired', async () => {
    const account = await registerAndSignIn(app);
    await app.clock.advance(30 * 24 * 60 * 60 * 1000 + 1000);
    const response = await app.call('POST', '/v1/auth/refresh', {
      body: { refresh_token: account.refreshToken },
    });
    expect(response.status).toBe(401);
  });
});

describe('the OpenAPI document', () => {
  it.each([
    ['post', '/v1/auth/register'],
    ['post', '/v1/auth/login'],
    ['post', '/v1/auth/verify-email'],
    ['post', '/v1/auth/forgot-password'],
    ['post', '/v1/auth/reset-password'],
    ['post', '/v1/auth/refresh'],
    ['post', '/v1/auth/logout'],
    ['get', '/v1/auth/me'],
    ['patch', '/v1/auth/me'],
    ['post', '/v1/auth/2fa/enable'],
    ['post', '/v1/auth/2fa/confirm'],
    ['delete', '/v1/auth/2fa'],
    ['post', '/v1/auth/2fa/verify'],
    ['post', '/v1/auth/change-password'],
    ['get', '/v1/auth/sessions'],
    ['delete', '/v1/auth/sessions/{id}'],
    ['delete', '/v1/auth/sessions'],
    ['post', '/v1/auth/api-keys'],
    ['get', '/v1/auth/api-keys'],
    ['delete', '/v1/auth/api-keys/{id}'],
    ['get', '/v1/organizations'],
    ['post', '/v1/organizations'],
  ])('describes %s %s', async (method, path) => {
    const document = (await (await app.call('GET', '/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(document.paths[path]?.[method]).toEqual(expect.objectContaining({ summary: expect.any(String) }));
  });
});
