/**
 * The edgenet provider, Cloudflare's v4 API: an API token is verified with `/user/tokens/verify`
 * and each zone named is looked up to its zone id.
 */
import { createHash } from 'node:crypto';
import type { SafeResponse } from '../../security/egress.js';
import type { IntegrationCredentials } from '../credentials.js';
import {
  jsonBody,
  createRequestOf,
  providerRequest,
  ProviderError,
  requiredCredential,
  testByVerifying,
  type ProviderAdapter,
  type ProviderContext,
  type Verified,
} from './provider.js';
import { once, SECRET_FIELD, stringArray } from './settings.js';

interface Envelope<T> {
  success?: boolean;
  errors?: { code?: number; message?: string }[];
  result?: T;
}

/** A zone the token reaches. */
export interface EdgenetZone {
  id: string;
  name: string;
  status: string;
}

function endpoint(context: ProviderContext, path: string): string {
  return `${context.config.edgenetUrl.replace(/\/+$/, '')}${path}`;
}

async function envelope<T>(response: SafeResponse, what: string): Promise<T> {
  const body = (await jsonBody(response)) as Envelope<T> | undefined;
  const reason = body?.errors?.map((error) => error.message).join('; ') || `HTTP ${response.status}`;
  if (response.status === 401 || response.status === 403) {
    throw new ProviderError('rejected', `edgenet refused ${what}: ${reason}`, 'api_token');
  }
  if (!response.ok || body?.success !== true || body.result === undefined) {
    throw new ProviderError('unreachable', `edgenet could not answer ${what}: ${reason}`);
  }
  return body.result;
}

async function verifyToken(token: string, context: ProviderContext): Promise<string> {
  const response = await providerRequest(
    'edgenet',
    endpoint(context, '/user/tokens/verify'),
    { headers: { authorization: `Bearer ${token}` } },
    context,
  );
  const result = await envelope<{ id?: string; status?: string }>(response, 'the API token');
  if (result.status === 'expired')
    throw new ProviderError('expired', 'the edgenet API token has expired', 'api_token');
  if (result.status !== 'active') {
    throw new ProviderError(
      'rejected',
      `the edgenet API token is ${result.status ?? 'not active'}`,
      'api_token',
    );
  }
  return result.id ?? createHash('sha256').update(token).digest('hex').slice(0, 16);
}

/** Looks each zone name up; throws naming the zones the token cannot see. */
export async function lookUpZones(
  token: string,
  names: readonly string[],
  context: ProviderContext,
): Promise<EdgenetZone[]> {
  const zones: EdgenetZone[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const response = await providerRequest(
      'edgenet',
      endpoint(context, `/zones?name=${encodeURIComponent(name)}`),
      { headers: { authorization: `Bearer ${token}` } },
      context,
    );
    const result = await envelope<{ id?: string; name?: string; status?: string }[]>(
      response,
      `zone ${name}`,
    );
    const zone = result.find((entry) => entry.name === name);
    if (zone?.id === undefined) missing.push(name);
    else zones.push({ id: zone.id, name, status: zone.status ?? 'unknown' });
  }
  if (missing.length > 0) {
    throw new ProviderError('rejected', `the API token reaches no zone named ${missing.join(', ')}`, 'zones');
  }
  return zones;
}

function zoneNames(configuration: Record<string, unknown>): string[] {
  const zones = configuration.zones;
  if (!Array.isArray(zones)) return [];
  return zones
    .map((zone: unknown) => (typeof zone === 'string' ? zone : (zone as { name?: unknown }).name))
    .filter((name): name is string => typeof name === 'string');
}

async function verify(
  credentials: IntegrationCredentials,
  configuration: Record<string, unknown>,
  context: ProviderContext,
): Promise<Verified> {
  const token = requiredCredential(credentials, 'api_token');
  const tokenId = await verifyToken(token, context);
  const zones = await lookUpZones(token, zoneNames(configuration), context);
  return { accountKey: `token:${tokenId}`, configuration: { zones } };
}

const ZONE = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const edgenetProvider: ProviderAdapter = {
  type: 'edgenet',
  settings: {
    configuration: { zones: stringArray((item) => ZONE.test(item), 'a zone name such as example.com') },
    requiredConfiguration: [],
    credentials: { required: ['api_token'], optional: [] },
  },
  verify,
  test: (credentials, configuration, context) =>
    testByVerifying(() => verify(credentials, configuration, context)),
  create: {
    summary: 'Connect an edgenet account',
    required: ['api_token', 'zones'],
    fields: {
      api_token: SECRET_FIELD,
      zones: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 253 } },
    },
    request: (body) =>
      createRequestOf({ ...body, zones: once(body.zones as string[]) }, ['zones'], ['api_token']),
    answerDescription: 'The integration, connected, with the zone ids found',
    answerFields: { zones: { type: 'array' } },
  },
};
