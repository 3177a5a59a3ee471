/**
 * The codehost provider, GitHub's REST API: an installation of the platform's app (or a personal
 * access token) gives access to repositories; each subscribed repository gets a webhook that
 * points back at `/webhooks/codehost/<integration id>`, signed with the integration's secret.
 */
import { createPrivateKey, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import type { SafeResponse } from '../../security/egress.js';
import type { IntegrationCredentials } from '../credentials.js';
import { codehostWebhookId } from '../ids.js';
import {
  jsonBody,
  providerRequest,
  ProviderError,
  requiredCredential,
  testByVerifying,
  type Connected,
  type CreateRequest,
  type ProviderAdapter,
  type ProviderContext,
  type Verified,
} from './provider.js';
import { once, stringArray, text } from './settings.js';

const ACCEPT = 'application/vnd.github+json';
const API_VERSION = '2022-11-28';

function headers(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, accept: ACCEPT, 'x-github-api-version': API_VERSION };
}

function endpoint(context: ProviderContext, path: string): string {
  return `${context.config.codehostUrl.replace(/\/+$/, '')}${path}`;
}

function providerMessage(body: unknown): string {
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : 'no message';
}

/** Maps a refusal of GitHub's API to the failure it means. */
async function refusal(response: SafeResponse, what: string): Promise<never> {
  const message = providerMessage(await jsonBody(response));
  if (response.status === 401) {
    const expired = /bad credentials|expired/i.test(message);
    throw new ProviderError(expired ? 'expired' : 'rejected', `codehost refused ${what}: ${message}`);
  }
  if (response.status === 403 || response.status === 404) {
    throw new ProviderError('rejected', `codehost refused ${what} (${response.status}): ${message}`);
  }
  if (response.status === 422) throw new ProviderError('invalid', `codehost refused ${what}: ${message}`);
  throw new ProviderError('unreachable', `codehost answered ${response.status} to ${what}`);
}

/** A short-lived JWT the platform's app authenticates with (RS256, issued by the app id). */
async function appJwt(context: ProviderContext): Promise<string> {
  const app = context.config.codehostApp;
  if (app === undefined) {
    throw new ProviderError(
      'invalid',
      'installation_id needs the platform codehost app (CLOUDPLANE_PROVIDER_CODEHOST_APP_ID), which is not configured; use a generic create with credentials.token instead',
      'installation_id',
    );
  }
  // The provider checks the token against its own clock, so it is dated by the wall clock (a
  // minute early, for clock drift), never by an injected one.
  const issuedAt = Math.floor(Date.now() / 1000) - 60;
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256' })
    .setIssuer(app.appId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + 600)
    .sign(createPrivateKey(app.privateKey));
}

/** An installation access token for `installationId`, minted with the app's JWT. */
export async function installationToken(installationId: string, context: ProviderContext): Promise<string> {
  const response = await providerRequest(
    'codehost',
    endpoint(context, `/app/installations/${encodeURIComponent(installationId)}/access_tokens`),
    { method: 'POST', headers: headers(await appJwt(context)) },
    context,
  );
  if (response.status === 404) {
    throw new ProviderError('rejected', `codehost has no installation ${installationId}`, 'installation_id');
  }
  if (!response.ok) return refusal(response, `the installation ${installationId}`);
  const token = ((await jsonBody(response)) as { token?: unknown } | undefined)?.token;
  if (typeof token !== 'string')
    throw new ProviderError('unreachable', 'codehost returned no installation token');
  return token;
}

/** The token requests are made with: an installation token, or the personal access token given. */
export async function accessToken(
  credentials: IntegrationCredentials,
  configuration: Record<string, unknown>,
  context: ProviderContext,
): Promise<string> {
  const installationId = configuration.installation_id;
  if (typeof installationId === 'string') return installationToken(installationId, context);
  return requiredCredential(credentials, 'token');
}

interface RepositoryPage {
  total_count?: number;
  repositories?: { full_name?: unknown }[];
}

/** Every repository an installation can reach, as `owner/repo`. */
export async function installationRepositories(token: string, context: ProviderContext): Promise<string[]> {
  const names: string[] = [];
  for (let page = 1; page <= 10; page += 1) {
    const response = await providerRequest(
      'codehost',
      endpoint(context, `/installation/repositories?per_page=100&page=${page}`),
      { headers: headers(token) },
      context,
    );
    if (!response.ok) return refusal(response, 'the repository list');
    const body = (await jsonBody(response)) as RepositoryPage | undefined;
    const batch = (body?.repositories ?? [])
      .map((repository) => repository.full_name)
      .filter((name): name is string => typeof name === 'string');
    names.push(...batch);
    if (batch.length < 100 || names.length >= (body?.total_count ?? 0)) break;
  }
  return names;
}

/** Checks that a personal access token can read each repository; answers those it can. */
async function readableRepositories(
  token: string,
  repositories: readonly string[],
  context: ProviderContext,
): Promise<string[]> {
  const readable: string[] = [];
  for (const repository of repositories) {
    const response = await providerRequest(
      'codehost',
      endpoint(context, `/repos/${repository}`),
      { headers: headers(token) },
      context,
    );
    if (response.ok) readable.push(repository);
    else if (response.status !== 404 && response.status !== 403)
      await refusal(response, `repository ${repository}`);
  }
  return readable;
}

/** The login behind a personal access token. */
async function tokenOwner(token: string, context: ProviderContext): Promise<string> {
  const response = await providerRequest(
    'codehost',
    endpoint(context, '/user'),
    { headers: headers(token) },
    context,
  );
  if (!response.ok) return refusal(response, 'the token');
  const login = ((await jsonBody(response)) as { login?: unknown } | undefined)?.login;
  if (typeof login !== 'string') throw new ProviderError('unreachable', 'codehost returned no user login');
  return login;
}

function configuredRepositories(configuration: Record<string, unknown>): string[] {
  const repositories = configuration.repositories;
  return Array.isArray(repositories)
    ? repositories.filter((name): name is string => typeof name === 'string')
    : [];
}

async function verify(
  credentials: IntegrationCredentials,
  configuration: Record<string, unknown>,
  context: ProviderContext,
): Promise<Verified> {
  const wanted = configuredRepositories(configuration);
  const installationId = configuration.installation_id;
  const token = await accessToken(credentials, configuration, context);
  let accountKey: string;
  let reachable: string[];
  if (typeof installationId === 'string') {
    accountKey = `installation:${installationId}`;
    reachable = await installationRepositories(token, context);
  } else {
    accountKey = `user:${await tokenOwner(token, context)}`;
    reachable = await readableRepositories(token, wanted, context);
  }
  const missing = wanted.filter((name) => !reachable.includes(name));
  if (missing.length > 0) {
    throw new ProviderError(
      'rejected',
      `the credentials give no access to ${missing.join(', ')} (repositories not accessible)`,
      'repositories',
    );
  }
  const organization = wanted[0]?.split('/')[0];
  return { accountKey, configuration: organization === undefined ? {} : { organization } };
}

/**
 * Creates a repository webhook delivering `events` to `url`, signed with `secret`; returns the
 * provider's hook id.
 */
export async function createRepositoryWebhook(
  token: string,
  repository: string,
  hook: { url: string; secret: string; events: readonly string[] },
  context: ProviderContext,
): Promise<number> {
  const response = await providerRequest(
    'codehost',
    endpoint(context, `/repos/${repository}/hooks`),
    {
      method: 'POST',
      headers: headers(token),
      json: {
        name: 'web',
        active: true,
        events: hook.events,
        config: { url: hook.url, content_type: 'json', secret: hook.secret, insecure_ssl: '0' },
      },
    },
    context,
  );
  if (!response.ok) return refusal(response, `a webhook on ${repository}`);
  const id = ((await jsonBody(response)) as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'number')
    throw new ProviderError('unreachable', `codehost returned no hook id for ${repository}`);
  return id;
}

/** Removes a repository webhook; one already gone counts as removed. */
export async function deleteRepositoryWebhook(
  token: string,
  repository: string,
  hookId: number,
  context: ProviderContext,
): Promise<void> {
  const response = await providerRequest(
    'codehost',
    endpoint(context, `/repos/${repository}/hooks/${hookId}`),
    { method: 'DELETE', headers: headers(token) },
    context,
  );
  if (!response.ok && response.status !== 404)
    await refusal(response, `removing the webhook on ${repository}`);
}

/** Inbound codehost events an integration may subscribe to. */
const CODEHOST_EVENTS = ['push', 'pull_request', 'release'] as const;

/** Where a codehost integration's deliveries arrive. */
export function codehostWebhookUrl(baseUrl: string, integrationId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/webhooks/codehost/${integrationId}`;
}

/**
 * Creates one webhook per repository of a new integration, signed with a new secret that only the
 * create's answer shows; the configuration keeps repository → hook id for their removal.
 */
async function installWebhooks(
  id: string,
  request: CreateRequest,
  context: ProviderContext & { publicUrl: string },
): Promise<Connected> {
  const { installation_id, repositories } = request.configuration as {
    installation_id: string;
    repositories: string[];
  };
  const events = request.checked!.events as string[];
  const secret = randomBytes(32).toString('hex');
  const url = codehostWebhookUrl(context.publicUrl, id);
  const hooks: Record<string, number> = {};
  try {
    const token = await accessToken({}, { installation_id }, context);
    for (const repository of repositories) {
      hooks[repository] = await createRepositoryWebhook(token, repository, { url, secret, events }, context);
    }
  } catch (error) {
    // A refusal here is about the repositories, unless the provider named another field.
    if (error instanceof ProviderError && error.field === undefined) {
      throw new ProviderError(error.failure, error.message, 'repositories');
    }
    throw error;
  }
  return {
    configuration: { webhook_id: codehostWebhookId(id), webhook_events: events, hooks },
    credentials: { webhook_secret: secret },
    answer: { webhook_url: url, webhook_secret: secret },
  };
}

const REPOSITORY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const codehostEvents = stringArray(
  (item) => (CODEHOST_EVENTS as readonly string[]).includes(item),
  CODEHOST_EVENTS.join(', '),
);

export const codehostProvider: ProviderAdapter = {
  type: 'codehost',
  settings: {
    configuration: {
      installation_id: (value, field) =>
        typeof value === 'string' && /^\d+$/.test(value) ? undefined : `${field} must be a numeric string`,
      organization: text,
      repositories: stringArray((item) => REPOSITORY.test(item), 'an owner/repo name'),
      events: codehostEvents,
      webhook_events: codehostEvents,
    },
    requiredConfiguration: [],
    credentials: { required: ['token'], optional: [] },
  },
  verify,
  test: (credentials, configuration, context) =>
    testByVerifying(() => verify(credentials, configuration, context)),
  create: {
    summary: 'Connect a codehost installation',
    description:
      'Creates a webhook on each repository delivering the events to webhook_url, signed with ' +
      'webhook_secret, which is shown only in this answer.',
    required: ['installation_id', 'repositories', 'events'],
    fields: {
      installation_id: { type: 'string', pattern: '^\\d+$', maxLength: 20 },
      repositories: {
        type: 'array',
        minItems: 1,
        maxItems: 100,
        items: { type: 'string', maxLength: 200 },
      },
      events: { type: 'array', minItems: 1, items: { type: 'string', maxLength: 64 } },
    },
    request(body) {
      const { installation_id, repositories } = body;
      return {
        configuration: { installation_id, repositories },
        credentials: {},
        credentialField: 'installation_id',
        checked: { installation_id, repositories, events: once(body.events as string[]) },
      };
    },
    answerFields: { webhook_url: { type: 'string' }, webhook_secret: { type: 'string' } },
    connect: installWebhooks,
  },
};
