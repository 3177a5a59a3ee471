/**
 * What every provider adapter offers, and how its failures are told apart. Adapters speak their
 * provider's own HTTP protocol through `safeFetch`, so every request is subject to the outbound
 * rules whatever base URL the operator configured.
 */
import type { IntegrationsConfig } from '../../config/integrations.js';
import { EgressError, safeFetch, type EgressPolicy, type SafeResponse } from '../../security/egress.js';
import type { IntegrationCredentials } from '../credentials.js';
import type { EventDefinition } from '../events/catalogue.js';
import type { EventToSend, ProviderEndpoints, ProviderRequest } from '../events/forwarding.js';
import type { ProviderSettings } from './settings.js';

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

export interface ProviderAdapter {
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
