import { randomBytes } from 'node:crypto';
import { TOTP } from 'otpauth';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../accounts/passwords.js';
import { createUser, findUserByEmail } from '../../accounts/users.js';
import { enveloped, flatError } from '../fixtures/api-bodies.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { createTestPostgresDatabase, describeWithPostgres } from '../fixtures/db-postgres.js';
import { OAuthBrowser } from '../fixtures/oauth-browser.js';
import {
  startCodehostServer,
  type CodehostAccount,
  type CodehostServer,
} from '../fixtures/oauth-codehost-server.js';
import {
  APP_BASE_URL,
  CLIENT_REDIRECT_URI,
  startOAuthLoginApp,
  type OAuthLoginApp,
} from '../fixtures/oauth-login-app.js';
import {
  startOidcProvider,
  type OidcAccount,
  type OidcProviderServer,
} from '../fixtures/oauth-oidc-provider.js';

const IDENTITY_CLIENT = {
  clientId: 'cloudplane-identity',
  clientSecret: 'identity-client-secret-value',
  redirectUri: `${APP_BASE_URL}/v1/auth/oauth/identity/callback`,
};
const CODEHOST_CLIENT = {
  clientId: 'cloudplane-codehost',
  clientSecret: 'codehost-client-secret-value',
  redirectUri: `${APP_BASE_URL}/v1/auth/oauth/codehost/callback`,
};
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

type Provider = 'identity' | 'codehost';

function identityEnv(idp: OidcProviderServer): Record<string, string> {
  return {
    CLOUDPLANE_OAUTH_IDENTITY_ISSUER: idp.issuer,
    CLOUDPLANE_OAUTH_IDENTITY_CLIENT_ID: IDENTITY_CLIENT.clientId,
    CLOUDPLANE_OAUTH_IDENTITY_CLIENT_SECRET: IDENTITY_CLIENT.clientSecret,
  };
}

function codehostEnv(
  codehost: CodehostServer,
  clientSecret = CODEHOST_CLIENT.clientSecret,
): Record<string, string> {
  return {
    CLOUDPLANE_OAUTH_CODEHOST_CLIENT_ID: CODEHOST_CLIENT.clientId,
    CLOUDPLANE_OAUTH_CODEHOST_CLIENT_SECRET: clientSecret,
    CLOUDPLANE_OAUTH_CODEHOST_AUTHORIZE_URL: `${codehost.url}/login/oauth/authorize`,
    CLOUDPLANE_OAUTH_CODEHOST_TOKEN_URL: `${codehost.url}/login/oauth/access_token`,
    CLOUDPLANE_OAUTH_CODEHOST_USER_URL: `${codehost.url}/user`,
    CLOUDPLANE_OAUTH_CODEHOST_EMAILS_URL: `${codehost.url}/user/emails`,
  };
}

/** A person known to both providers, with distinct provider ids and one address. */
interface Person {
  email: string;
  name: string;
  emailVerified?: boolean;
}

let serial = 0;
function person(overrides: Partial<Person> = {}): Person {
  serial += 1;
  return {
    email: `person${serial}-${randomBytes(3).toString('hex')}@example.com`,
    name: `Person ${serial}`,
    ...overrides,
  };
}

function oidcAccount(who: Person): OidcAccount {
  return {
    sub: `sub-${who.email}`,
    email: who.email,
    email_verified: who.emailVerified ?? true,
    name: who.name,
    picture: 'https://avatars.example.com/identity.png',
  };
}

function codehostAccount(
  who: Person,
  id = Number.parseInt(randomBytes(3).toString('hex'), 16),
): CodehostAccount {
  return {
    id,
    login: who.name.toLowerCase().replace(/\s+/g, '-'),
    name: who.name,
    avatarUrl: 'https://avatars.example.com/codehost.png',
    emails: [
      { email: `noreply-${id}@users.codehost.example`, primary: false, verified: true },
      { email: who.email, primary: true, verified: who.emailVerified ?? true },
    ],
  };
}

let idp: OidcProviderServer;
let codehost: CodehostServer;
let app: OAuthLoginApp;
const logs = capturedLogger();
let clockOffsetMs = 0;

beforeAll(async () => {
  idp = await startOidcProvider(IDENTITY_CLIENT);
  codehost = await startCodehostServer(CODEHOST_CLIENT);
  app = await startOAuthLoginApp({
    env: { ...identityEnv(idp), ...codehostEnv(codehost) },
    logger: logs.logger,
    now: () => new Date(Date.now() + clockOffsetMs),
  });
});
afterAll(async () => {
  await app.close();
  await codehost.close();
  await idp.close();
});
afterEach(() => {
  clockOffsetMs = 0;
});

function signInAs(provider: Provider, who: Person): void {
  if (provider === 'identity') idp.signInAs(oidcAccount(who));
  else codehost.signInAs(codehostAccount(who));
}

function startPath(provider: string, query: Record<string, string>): string {
  return `/v1/auth/oauth/${provider}?${new URLSearchParams(query).toString()}`;
}

function browserFor(target: OAuthLoginApp): OAuthBrowser {
  return new OAuthBrowser({
    hosts: { [APP_BASE_URL]: target.url },
    clientOrigins: ['http://client.test'],
    userAgent: USER_AGENT,
  });
}

interface LoginOutcome {
  /** The fragment the client reads at its redirect URI. */
  result: URLSearchParams;
  clientState: string;
  /** Our callback as the provider sent the browser to it, code included. */
  callbackUrl: URL;
}

async function login(provider: Provider, target: OAuthLoginApp = app): Promise<LoginOutcome> {
  const clientState = `csrf-${randomBytes(12).toString('hex')}`;
  const landing = await browserFor(target).visit(
    `${APP_BASE_URL}${startPath(provider, { redirect_uri: CLIENT_REDIRECT_URI, state: clientState })}`,
  );
  if (landing.kind !== 'client') {
    throw new Error(
      `login stopped at ${landing.url.href}: ${landing.response.status} ${await landing.response.text()}`,
    );
  }
  expect(`${landing.url.origin}${landing.url.pathname}${landing.url.search}`).toBe(CLIENT_REDIRECT_URI);
  const callbackUrl = landing.trail.find((url) => url.pathname === `/v1/auth/oauth/${provider}/callback`);
  if (!callbackUrl) throw new Error('the login never reached the callback');
  return { result: new URLSearchParams(landing.url.hash.slice(1)), clientState, callbackUrl };
}

const PASSWORD = 'correct horse battery staple';

function bearer(token: string | null | undefined): Record<string, string> {
  return { authorization: `Bearer ${token ?? ''}` };
}

function postJson(path: string, body: unknown, token?: string): Promise<Response> {
  return app.request(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token !== undefined && bearer(token)) },
    body: JSON.stringify(body),
  });
}

function passwordLogin(email: string): Promise<Response> {
  return postJson('/v1/auth/login', { email, password: PASSWORD });
}

interface Me {
  /** The token the user was read with. */
  token: string;
  id: string;
  email: string;
  name: string;
  avatar_url: string | null;
  email_verified: boolean;
}

/** The user a token result signs in, as `GET /v1/auth/me` answers with its token. */
async function signedInUser(result: URLSearchParams, target: OAuthLoginApp = app): Promise<Me> {
  const response = await target.request('/v1/auth/me', { headers: bearer(result.get('token')) });
  expect(response.status).toBe(200);
  return { ...(await enveloped<Omit<Me, 'token'>>(response)).data, token: result.get('token') ?? '' };
}

async function passwordHashOf(userId: string): Promise<string | null | undefined> {
  const row = await app.database.kysely
    .selectFrom('users')
    .select('password_hash')
    .where('id', '=', userId)
    .executeTakeFirst();
  return row?.password_hash;
}

async function pendingLoginCount(): Promise<number> {
  const row = await app.database.kysely
    .selectFrom('oauth_login_states')
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

describe('GET /v1/auth/oauth/:provider', () => {
  it('redirects to the identity provider with PKCE S256, a nonce, our own state and our callback', async () => {
    const response = await app.request(
      startPath('identity', { redirect_uri: CLIENT_REDIRECT_URI, state: 'client-csrf-1' }),
    );
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(`${idp.issuer}/auth`);
    const query = Object.fromEntries(location.searchParams);
    expect(query).toMatchObject({
      client_id: IDENTITY_CLIENT.clientId,
      response_type: 'code',
      redirect_uri: IDENTITY_CLIENT.redirectUri,
      scope: 'openid email profile',
      code_challenge_method: 'S256',
    });
    expect(query.code_challenge).toMatch(/^[\w-]{43}$/);
    expect(query.nonce).toMatch(/^[\w-]{43}$/);
    expect(query.state).toMatch(/^[\w-]{43}$/);
    expect(query.state).not.toBe('client-csrf-1');
  });

  it('redirects to the codehost authorize URL with PKCE S256 and the configured scopes, without a nonce', async () => {
    const response = await app.request(
      startPath('codehost', { redirect_uri: CLIENT_REDIRECT_URI, state: 'client-csrf-2' }),
    );
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(`${codehost.url}/login/oauth/authorize`);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      client_id: CODEHOST_CLIENT.clientId,
      redirect_uri: CODEHOST_CLIENT.redirectUri,
      scope: 'read:user user:email',
      code_challenge_method: 'S256',
    });
    expect(location.searchParams.has('nonce')).toBe(false);
  });

  it.each([
    ['another host', 'http://evil.test/signed-in'],
    ['a trailing slash', `${CLIENT_REDIRECT_URI}/`],
    ['an added query', `${CLIENT_REDIRECT_URI}?next=/admin`],
    ['another scheme', 'https://client.test/signed-in'],
    ['another case', 'http://client.test/Signed-In'],
  ])(
    'answers 400 invalid_redirect_uri for a redirect_uri with %s, recording nothing',
    async (_case, redirectUri) => {
      const before = await pendingLoginCount();
      const response = await app.request(
        startPath('identity', { redirect_uri: redirectUri, state: 'client-csrf-3' }),
      );
      expect(response.status).toBe(400);
      expect(await flatError(response)).toEqual({
        error: 'invalid_redirect_uri',
        message: 'redirect_uri is not one of the redirect URIs this server allows',
      });
      expect(await pendingLoginCount()).toBe(before);
    },
  );

  it.each([
    ['no state', { redirect_uri: CLIENT_REDIRECT_URI }, 'state is required'],
    [
      'a state under 8 characters',
      { redirect_uri: CLIENT_REDIRECT_URI, state: 'short' },
      'state must NOT have fewer than 8 characters',
    ],
    [
      'a state over 512 characters',
      { redirect_uri: CLIENT_REDIRECT_URI, state: 'x'.repeat(513) },
      'state must NOT have more than 512 characters',
    ],
    ['no redirect_uri', { state: 'client-csrf-4' }, 'redirect_uri is required'],
  ])('answers 400 invalid_request naming the problem for %s', async (_case, query, problem) => {
    const response = await app.request(startPath('codehost', query));
    expect(response.status).toBe(400);
    const body = await flatError(response);
    expect(body.error).toBe('invalid_request');
    expect(body.message).toContain(problem);
  });

  it.each([['/v1/auth/oauth/gitlab'], ['/v1/auth/oauth/gitlab/callback']])(
    'answers 404 unknown_provider at %s',
    async (path) => {
      const response = await app.request(
        `${path}?${new URLSearchParams({ redirect_uri: CLIENT_REDIRECT_URI, state: 'client-csrf-5', code: 'c' })}`,
      );
      expect(response.status).toBe(404);
      expect(await flatError(response)).toEqual({
        error: 'unknown_provider',
        message: 'no OAuth provider "gitlab"; the providers are codehost, identity',
      });
    },
  );
});

describe.each<Provider>(['identity', 'codehost'])('a %s login', (provider) => {
  it('returns to the redirect URI with a token, a refresh token and the client state in the fragment', async () => {
    const who = person({ name: 'Ada Lovelace' });
    signInAs(provider, who);
    const { result, clientState } = await login(provider);
    expect([...result.keys()].sort()).toEqual([
      'expires_at',
      'refresh_token',
      'state',
      'token',
      'token_type',
    ]);
    expect(result.get('state')).toBe(clientState);
    expect(result.get('token_type')).toBe('Bearer');
    expect(Date.parse(result.get('expires_at') ?? '')).toBeGreaterThan(Date.now());

    const user = await signedInUser(result);
    expect(user).toMatchObject({ email: who.email, name: 'Ada Lovelace', email_verified: true });
    expect(user.avatar_url).toBe(`https://avatars.example.com/${provider}.png`);
    expect(await passwordHashOf(user.id)).toBeNull();
  });

  it('records the session with the browser and address it came from', async () => {
    signInAs(provider, person());
    const { result } = await login(provider);
    const response = await app.request('/v1/auth/sessions', { headers: bearer(result.get('token')) });
    expect(response.status).toBe(200);
    const sessions = (await enveloped<{ device: string; ip_address: string; current: boolean }[]>(response))
      .data;
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ current: true, ip_address: expect.stringMatching(/127\.0\.0\.1/) });
    expect(sessions[0]?.device).toContain('Firefox');
  });

  it('hands out a refresh token that POST /v1/auth/refresh exchanges', async () => {
    signInAs(provider, person());
    const { result } = await login(provider);
    const response = await app.request('/v1/auth/refresh', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: result.get('refresh_token') }),
    });
    expect(response.status).toBe(200);
    expect((await enveloped<{ token: string }>(response)).data.token).toEqual(expect.any(String));
  });

  it('signs the same person in as the same user the next time', async () => {
    const who = person();
    signInAs(provider, who);
    const first = await signedInUser((await login(provider)).result);
    const second = await signedInUser((await login(provider)).result);
    expect(second.id).toBe(first.id);
  });

  it('answers 400 invalid_state when the callback is replayed', async () => {
    signInAs(provider, person());
    const { callbackUrl } = await login(provider);
    const replay = await app.request(`${callbackUrl.pathname}${callbackUrl.search}`);
    expect(replay.status).toBe(400);
    expect(await flatError(replay)).toEqual({
      error: 'invalid_state',
      message: 'the login state is unknown, expired or already used; start the login again',
    });
  });

  it('returns error=email_not_verified with the client state when the provider has no verified address', async () => {
    const who = person({ emailVerified: false });
    signInAs(provider, who);
    const { result, clientState } = await login(provider);
    expect(Object.fromEntries(result)).toEqual({ error: 'email_not_verified', state: clientState });
    expect(await findUserByEmail(app.database, who.email)).toBeUndefined();
  });

  it('returns error=access_denied with the client state when the person declines at the provider', async () => {
    (provider === 'identity' ? idp : codehost).declineNextLogin();
    const { result, clientState } = await login(provider);
    expect(Object.fromEntries(result)).toEqual({ error: 'access_denied', state: clientState });
  });
});

describe('GET /v1/auth/oauth/:provider/callback', () => {
  async function beginLogin(provider: Provider): Promise<URL> {
    const response = await app.request(
      startPath(provider, { redirect_uri: CLIENT_REDIRECT_URI, state: 'client-csrf-6' }),
    );
    expect(response.status).toBe(302);
    return new URL(response.headers.get('location') ?? '');
  }

  it('answers 400 invalid_state for a state this server never issued', async () => {
    const response = await app.request(`/v1/auth/oauth/identity/callback?code=abc&state=${'A'.repeat(43)}`);
    expect(response.status).toBe(400);
    expect((await flatError(response)).error).toBe('invalid_state');
  });

  it("answers 400 invalid_state for another provider's state", async () => {
    const state = (await beginLogin('identity')).searchParams.get('state') ?? '';
    const response = await app.request(`/v1/auth/oauth/codehost/callback?code=abc&state=${state}`);
    expect(response.status).toBe(400);
    expect((await flatError(response)).error).toBe('invalid_state');
  });

  it('answers 400 invalid_request when the provider sent neither a code nor an error', async () => {
    const state = (await beginLogin('identity')).searchParams.get('state') ?? '';
    const response = await app.request(`/v1/auth/oauth/identity/callback?state=${state}`);
    expect(response.status).toBe(400);
    expect(await flatError(response)).toEqual({
      error: 'invalid_request',
      message: 'the callback needs a code or an error',
    });
  });

  it.each([
    [9, 'completes the login'],
    [11, 'answers 400 invalid_state'],
  ])('%i minutes after the start, the callback %s', async (minutes, outcome) => {
    signInAs('identity', person());
    const authorizationUrl = await beginLogin('identity');
    clockOffsetMs = minutes * 60_000;
    const landing = await browserFor(app).visit(authorizationUrl.toString());
    if (outcome === 'completes the login') {
      expect(landing.kind).toBe('client');
      expect(new URLSearchParams(landing.url.hash.slice(1)).has('token')).toBe(true);
    } else {
      expect(landing.kind === 'answered' && landing.response.status).toBe(400);
      expect(landing.kind === 'answered' && (await flatError(landing.response)).error).toBe('invalid_state');
    }
  });

  it('passes an unrecognised provider error on as server_error', async () => {
    const state = (await beginLogin('codehost')).searchParams.get('state') ?? '';
    const response = await app.request(
      `/v1/auth/oauth/codehost/callback?error=${encodeURIComponent('<script>')}&state=${state}`,
    );
    expect(response.status).toBe(302);
    const fragment = new URLSearchParams(new URL(response.headers.get('location') ?? '').hash.slice(1));
    expect(Object.fromEntries(fragment)).toEqual({ error: 'server_error', state: 'client-csrf-6' });
  });
});

describe('accounts linked by verified e-mail', () => {
  it('signs one person in as one user through both providers', async () => {
    const who = person();
    idp.signInAs(oidcAccount(who));
    codehost.signInAs(codehostAccount({ ...who, email: who.email.toUpperCase() }));
    const throughIdentity = await signedInUser((await login('identity')).result);
    const throughCodehost = await signedInUser((await login('codehost')).result);
    expect(throughCodehost.id).toBe(throughIdentity.id);
    const links = await app.database.kysely
      .selectFrom('oauth_identities')
      .select(['provider', 'email'])
      .where('user_id', '=', throughIdentity.id)
      .orderBy('provider')
      .execute();
    expect(links).toEqual([
      { provider: 'codehost', email: who.email },
      { provider: 'identity', email: who.email },
    ]);
  });

  it('keeps signing a linked provider account in after its address changes', async () => {
    const who = person();
    const account = oidcAccount(who);
    idp.signInAs(account);
    const before = await signedInUser((await login('identity')).result);
    idp.signInAs({ ...account, email: `renamed-${who.email}` });
    const after = await signedInUser((await login('identity')).result);
    expect(after.id).toBe(before.id);
  });

  it('signs an existing verified account in and keeps its password', async () => {
    const who = person();
    const existing = await createUser(
      app.database,
      {
        email: who.email,
        name: who.name,
        passwordHash: await hashPassword(PASSWORD, app.accounts.passwordCost),
        emailVerified: true,
      },
      new Date(),
    );
    codehost.signInAs(codehostAccount(who));
    const user = await signedInUser((await login('codehost')).result);
    expect(user.id).toBe(existing.id);
    expect((await passwordLogin(who.email)).status).toBe(200);
  });

  it('takes an unverified account with that address over: its password and sessions stop working', async () => {
    const who = person();
    const registered = await app.request('/v1/auth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: who.email, password: PASSWORD, name: 'Squatter' }),
    });
    expect(registered.status).toBe(201);
    const squatterLogin = await passwordLogin(who.email);
    expect(squatterLogin.status).toBe(200);
    const squatterToken = (await enveloped<{ token: string }>(squatterLogin)).data.token;

    idp.signInAs(oidcAccount(who));
    const user = await signedInUser((await login('identity')).result);
    expect(user).toMatchObject({ email: who.email, email_verified: true });
    expect((await app.request('/v1/auth/me', { headers: bearer(squatterToken) })).status).toBe(401);
    expect((await passwordLogin(who.email)).status).toBe(401);
  });

  it('asks a user with two-factor authentication for the second factor, which 2fa/verify takes', async () => {
    const who = person();
    codehost.signInAs(codehostAccount(who));
    const first = await signedInUser((await login('codehost')).result);
    const setup = await app.request('/v1/auth/2fa/enable', { method: 'POST', headers: bearer(first.token) });
    expect(setup.status).toBe(200);
    const totp = new TOTP({ secret: (await enveloped<{ secret: string }>(setup)).data.secret });
    const confirmed = await postJson(
      '/v1/auth/2fa/confirm',
      { code: totp.generate({ timestamp: Date.now() }) },
      first.token,
    );
    expect(confirmed.status).toBe(200);

    const { result, clientState } = await login('codehost');
    expect([...result.keys()].sort()).toEqual(['error', 'session_token', 'state']);
    expect(result.get('error')).toBe('2fa_required');
    expect(result.get('state')).toBe(clientState);

    // The code of the next period: the one confirmation used is spent.
    clockOffsetMs = 30_000;
    const verified = await postJson('/v1/auth/2fa/verify', {
      code: totp.generate({ timestamp: Date.now() + clockOffsetMs }),
      session_token: result.get('session_token'),
    });
    expect(verified.status).toBe(200);
    const token = (await enveloped<{ token: string }>(verified)).data.token;
    expect((await signedInUser(new URLSearchParams({ token }))).id).toBe(first.id);
  });
});

describe('secrets in logs', () => {
  it('logs no code, state, token, refresh token or client secret of a login', async () => {
    const secrets: string[] = [IDENTITY_CLIENT.clientSecret, CODEHOST_CLIENT.clientSecret];
    for (const provider of ['identity', 'codehost'] as const) {
      signInAs(provider, person());
      const { result, callbackUrl } = await login(provider);
      secrets.push(
        callbackUrl.searchParams.get('code') ?? 'missing code',
        callbackUrl.searchParams.get('state') ?? 'missing state',
        result.get('token') ?? 'missing token',
        result.get('refresh_token') ?? 'missing refresh token',
      );
    }
    const logged = JSON.stringify(logs.lines);
    expect(logged).toContain('OAuth login succeeded');
    for (const secret of secrets) expect(logged).not.toContain(secret);
  });
});

describe('providers not configured or failing', () => {
  let partial: OAuthLoginApp;
  let unreachable: OAuthLoginApp;

  beforeAll(async () => {
    partial = await startOAuthLoginApp({ env: codehostEnv(codehost, 'not-the-client-secret') });
    unreachable = await startOAuthLoginApp({
      env: { ...identityEnv(idp), CLOUDPLANE_OAUTH_IDENTITY_ISSUER: 'http://127.0.0.1:1' },
    });
  });
  afterAll(async () => {
    await partial.close();
    await unreachable.close();
  });

  it.each([['/v1/auth/oauth/identity'], ['/v1/auth/oauth/identity/callback']])(
    'answers 404 provider_not_configured at %s when the provider has no client id',
    async (path) => {
      const query = new URLSearchParams({
        redirect_uri: CLIENT_REDIRECT_URI,
        state: 'client-csrf-7',
        code: 'c',
      });
      const response = await partial.request(`${path}?${query}`);
      expect(response.status).toBe(404);
      expect(await flatError(response)).toEqual({
        error: 'provider_not_configured',
        message: 'OAuth login through identity is not configured on this server',
      });
    },
  );

  it('returns error=server_error when the provider refuses the code exchange', async () => {
    codehost.signInAs(codehostAccount(person()));
    const { result, clientState } = await login('codehost', partial);
    expect(Object.fromEntries(result)).toEqual({ error: 'server_error', state: clientState });
  });

  it('answers 503 provider_unavailable when discovery cannot reach the issuer', async () => {
    const response = await unreachable.request(
      startPath('identity', { redirect_uri: CLIENT_REDIRECT_URI, state: 'client-csrf-8' }),
    );
    expect(response.status).toBe(503);
    expect(await flatError(response)).toEqual({
      error: 'provider_unavailable',
      message: 'the identity provider cannot be reached; retry shortly',
    });
  });
});

describeWithPostgres('on PostgreSQL', () => {
  let pgApp: OAuthLoginApp;
  let dropDatabase: () => Promise<void>;

  beforeAll(async () => {
    const database = await createTestPostgresDatabase();
    if (!database) throw new Error('describeWithPostgres runs only with a server');
    dropDatabase = database.drop;
    pgApp = await startOAuthLoginApp({ env: codehostEnv(codehost), databaseUrl: database.url });
  });
  afterAll(async () => {
    await pgApp.close();
    await dropDatabase();
  });

  it('completes a login once and refuses its replay', async () => {
    const who = person();
    codehost.signInAs(codehostAccount(who));
    const { result, callbackUrl } = await login('codehost', pgApp);
    expect((await signedInUser(result, pgApp)).email).toBe(who.email);
    const replay = await pgApp.request(`${callbackUrl.pathname}${callbackUrl.search}`);
    expect(replay.status).toBe(400);
    expect((await flatError(replay)).error).toBe('invalid_state');
  });
});
