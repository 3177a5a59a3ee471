/**
 * What every provider adapter offers, and how its failures are told apart. Adapters speak their
 * provider's own HTTP protocol through `safeFetch`, so every request is subject to the outbound
 * rules whatever base URL the operator configured.
 */
import type { IntegrationsConfig } from '../../config/integrations.js';
import type { IntegrationType } from '../../crds/integration.js';
import { EgressError, safeFetch, type EgressPolicy, type SafeResponse } from '../../security/egress.js';
import type { IntegrationCredentials } from '../credentials.js';
import type { EventDefinition } from '../events/catalogue.js';
import type { EventToSend, ProviderEndpoints, ProviderRequest } from '../events/forwarding.js';
import type { FieldSchema, ProviderSettings } from './settings.js';

/** Where the providers answer and what outbound requests may reach. */
export interface ProviderContext {
  config: IntegrationsConfig;
  egress: EgressPolicy;
}

/**
 * - `invalid`: the request is wrong before any provider is asked (a malformed key, an unknown zone).
 * - `rejected`: the provider refused the credentials or their permissions.
 * - `expired`: the provider says the credentials are expired or revoked.
 * - `unreachable`: the provider could not be reached or answered nonsense; retrying may help.
 */
export type ProviderFailure = 'invalid' | 'rejected' | 'expired' | 'unreachable';

/** A provider's refusal or failure; the message names the field or the provider's answer, never a secret. */
export class ProviderError extends Error {
  constructor(
    readonly failure: ProviderFailure,
    message: string,
    /** The request field the failure is about, when there is one. */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** The result of a successful verification. */
export interface Verified {
  /** Identifies the provider account: two integrations of one type may not share it. */
  accountKey: string;
  /** Non-secret facts learned from the provider, merged into the configuration. */
  configuration: Record<string, unknown>;
}

/** What POST /integrations/:id/test reports. */
export interface ProviderTestResult {
  connection: string;
  authentication: string;
  permissions: string;
  errors: string[];
}

/** How a provider forwards platform events, for one that does. */
export interface EventForwarding {
  /** Where in the provider an event of `definition` goes (a channel, a site, an action), or undefined when nowhere. */
  target(configuration: Record<string, unknown>, definition: EventDefinition): string | undefined;
  /** The request that carries the event there, in the provider's own protocol. */
  request(
    target: string,
    event: EventToSend,
    configuration: Record<string, unknown>,
    credentials: IntegrationCredentials | undefined,
    endpoints: ProviderEndpoints,
  ): ProviderRequest;
}

/** What a type-specific create asks for the integration it makes. */
export interface CreateRequest {
  configuration: Record<string, unknown>;
  credentials: IntegrationCredentials;
  /** The body field a refusal of the credentials is about. */
  credentialField: string;
  /** What the provider's configuration checks read, when not `configuration` itself. */
  checked?: Record<string, unknown>;
}

/** What a create adds once the provider verified the request: kept, and told only in the 201. */
export interface Connected {
  configuration: Record<string, unknown>;
  credentials: IntegrationCredentials;
  answer: Record<string, unknown>;
}

/**
 * The type-specific create (`POST /api/v1/integrations/<type>`): its body beside `name`, what it
 * stands for, and what the 201 adds to the integration's id, name, type and status.
 */
export interface ProviderCreate {
  summary: string;
  description?: string;
  fields: Readonly<Record<string, FieldSchema>>;
  required: readonly string[];
  request(body: Record<string, unknown>): CreateRequest;
  /** What the 201 says of the integration, when more than that it is connected. */
  answerDescription?: string;
  /** The 201's own fields: the configuration's as stored, then what `connect` answers. */
  answerFields: Readonly<Record<string, FieldSchema>>;
  /**
   * Runs after the verification with the new integration's id, before anything is stored (the
   * codehost creates its repository webhooks here).
   */
  connect?(
    id: string,
    request: CreateRequest,
    context: ProviderContext & { publicUrl: string },
  ): Promise<Connected>;
}

/** The body's values under `keys`, those it has. */
function pick(body: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => body[key] !== undefined).map((key) => [key, body[key]]));
}

/**
 * The request of a create body whose `configurationKeys` are settings and `credentialKeys`
 * secrets; a refusal of the credentials names the first.
 */
export function createRequestOf(
  body: Record<string, unknown>,
  configurationKeys: readonly string[],
  credentialKeys: readonly [string, ...string[]],
): CreateRequest {
  return {
    configuration: pick(body, configurationKeys),
    credentials: pick(body, credentialKeys) as IntegrationCredentials,
    credentialField: credentialKeys[0],
  };
}

/** The 201's own fields of a create, from the configuration as stored. */
export function createAnswerOf(
  create: ProviderCreate,
  configuration: Record<string, unknown>,
): Record<string, unknown> {
  return pick(configuration, Object.keys(create.answerFields));
}

export interface ProviderAdapter {
  /** The type's name: the CRD's `spec.type`, the generic create's `type`, the create route's path. */
  type: IntegrationType;
  /** What an integration of the type takes: its configuration and credential keys. */
  settings: ProviderSettings;
  /** Checks the credentials against the provider; throws `ProviderError` when they do not work. */
  verify(
    credentials: IntegrationCredentials,
    configuration: Record<string, unknown>,
    context: ProviderContext,
  ): Promise<Verified>;
  /** Exercises connection, authentication and permissions; never throws for a provider's refusal. */
  test(
    credentials: IntegrationCredentials,
    configuration: Record<string, unknown>,
    context: ProviderContext,
  ): Promise<ProviderTestResult>;
  /** Absent: the provider takes events only at `configuration.event_webhook_url`. */
  events?: EventForwarding;
  /** Absent: an integration of the type is created only through the generic create. */
  create?: ProviderCreate;
}

/** Sends one request to a provider; a refused or failed connection becomes an `unreachable` ProviderError. */
export async function providerRequest(
  provider: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; json?: unknown },
  context: ProviderContext,
): Promise<SafeResponse> {
  const headers: Record<string, string> = { 'user-agent': 'cloudplane', ...init.headers };
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  try {
    return await safeFetch(
      url,
      {
        method: init.method ?? 'GET',
        headers,
        ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
      },
      context.egress,
    );
  } catch (error) {
    if (error instanceof EgressError) {
      // A URL the outbound rules refuse will not become reachable by retrying.
      const refused = ['invalid-url', 'scheme', 'private-address'].includes(error.reason);
      throw new ProviderError(refused ? 'invalid' : 'unreachable', `${provider}: ${error.message}`);
    }
    throw error;
  }
}

/** The parsed JSON body, or undefined when the body is not JSON. */
export async function jsonBody(response: SafeResponse): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

/** A string credential that must be present. */
export function requiredCredential(credentials: IntegrationCredentials, field: string): string {
  const value = credentials[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ProviderError('invalid', `credentials.${field} is required`, `credentials.${field}`);
  }
  return value;
}

function testOutcome(error: unknown): { failure: ProviderFailure; message: string } {
  if (error instanceof ProviderError) return { failure: error.failure, message: error.message };
  throw error;
}

/** Turns a verification into a test result: each stage passes until the one that failed. */
export async function testByVerifying(verify: () => Promise<unknown>): Promise<ProviderTestResult> {
  try {
    await verify();
    return { connection: 'ok', authentication: 'ok', permissions: 'ok', errors: [] };
  } catch (error) {
    const { failure, message } = testOutcome(error);
    if (failure === 'unreachable') {
      return { connection: 'failed', authentication: 'skipped', permissions: 'skipped', errors: [message] };
    }
    if (failure === 'rejected' && /permission|scope|forbidden|not accessible/i.test(message)) {
      return { connection: 'ok', authentication: 'ok', permissions: 'failed', errors: [message] };
    }
    return { connection: 'ok', authentication: failure, permissions: 'skipped', errors: [message] };
  }
}
