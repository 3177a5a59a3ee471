/**
 * The pager provider, PagerDuty's Events API v2. It has no endpoint that checks a routing key
 * without paging someone, so creation checks the key's form, and a test sends a trigger and at
 * once resolves it under one dedup key.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { SafeResponse } from '../../security/egress.js';
import type { IntegrationCredentials } from '../credentials.js';
import { JSON_HEADERS, requiredForDelivery, summaryOf } from '../events/forwarding.js';
import {
  jsonBody,
  createRequestOf,
  providerRequest,
  ProviderError,
  requiredCredential,
  type ProviderAdapter,
  type ProviderContext,
  type ProviderTestResult,
  type Verified,
} from './provider.js';
import { text } from './settings.js';

/** An Events v2 integration (routing) key: 32 characters. */
export const PAGER_KEY = /^[A-Za-z0-9]{32}$/;

export type PagerAction = 'trigger' | 'acknowledge' | 'resolve';

/** One Events v2 event. `payload` is required for a trigger only. */
export interface PagerEvent {
  event_action: PagerAction;
  dedup_key?: string;
  payload?: {
    summary: string;
    source: string;
    severity: 'critical' | 'error' | 'warning' | 'info';
    custom_details?: Record<string, unknown>;
  };
}

function routingKey(credentials: IntegrationCredentials): string {
  const key = requiredCredential(credentials, 'integration_key');
  if (!PAGER_KEY.test(key)) {
    throw new ProviderError('invalid', 'integration_key must be 32 letters and digits', 'integration_key');
  }
  return key;
}

/** Where the Events v2 API takes events, on its base URL. */
function pagerEnqueueUrl(base: string): string {
  return `${base.replace(/\/+$/, '')}/v2/enqueue`;
}

/** Sends one event to `/v2/enqueue`; answers the provider's response for the caller to record. */
export async function enqueue(
  credentials: IntegrationCredentials,
  event: PagerEvent,
  context: ProviderContext,
): Promise<SafeResponse> {
  return providerRequest(
    'pager',
    pagerEnqueueUrl(context.config.pagerUrl),
    { method: 'POST', json: { routing_key: routingKey(credentials), ...event } },
    context,
  );
}

function verify(credentials: IntegrationCredentials): Promise<Verified> {
  const fingerprint = createHash('sha256').update(routingKey(credentials)).digest('hex');
  return Promise.resolve({ accountKey: `routing-key:${fingerprint.slice(0, 24)}`, configuration: {} });
}

async function refusalMessage(response: SafeResponse): Promise<string> {
  const body = (await jsonBody(response)) as { message?: unknown; errors?: unknown[] } | undefined;
  const details = body?.errors?.map(String).join('; ');
  return `pager answered ${response.status}: ${String(body?.message ?? 'no message')}${details ? ` (${details})` : ''}`;
}

async function test(credentials: IntegrationCredentials, _configuration: unknown, context: ProviderContext) {
  const result: ProviderTestResult = {
    connection: 'ok',
    authentication: 'ok',
    permissions: 'ok',
    errors: [],
  };
  try {
    const dedupKey = `cloudplane-test-${randomUUID()}`;
    const trigger = await enqueue(
      credentials,
      {
        event_action: 'trigger',
        dedup_key: dedupKey,
        payload: { summary: 'cloudplane connection test', source: 'cloudplane', severity: 'info' },
      },
      context,
    );
    if (trigger.status !== 202) {
      result.authentication = 'failed';
      result.permissions = 'skipped';
      result.errors.push(await refusalMessage(trigger));
      return result;
    }
    const resolve = await enqueue(credentials, { event_action: 'resolve', dedup_key: dedupKey }, context);
    if (resolve.status !== 202) {
      result.permissions = 'failed';
      result.errors.push(await refusalMessage(resolve));
    }
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    if (error.failure === 'unreachable') {
      Object.assign(result, { connection: 'failed', authentication: 'skipped', permissions: 'skipped' });
    } else {
      Object.assign(result, { authentication: 'failed', permissions: 'skipped' });
    }
    result.errors.push(error.message);
  }
  return result;
}

export const pagerProvider: ProviderAdapter = {
  type: 'pager',
  settings: {
    configuration: { service_id: text },
    requiredConfiguration: [],
    credentials: {
      required: ['integration_key'],
      optional: [],
      check: ({ integration_key }) =>
        typeof integration_key === 'string' && !PAGER_KEY.test(integration_key)
          ? {
              field: 'credentials.integration_key',
              message: 'credentials.integration_key must be 32 letters and digits',
            }
          : undefined,
    },
  },
  verify,
  test,
  events: {
    // Only the events the catalogue gives a pager action: alerts open an incident, recoveries resolve it.
    target: (_configuration, definition) => definition.pager,
    request(action, event, _configuration, credentials, endpoints) {
      const routing = {
        routing_key: requiredForDelivery(credentials, 'integration_key'),
        dedup_key: event.subject,
      };
      const message =
        action === 'resolve'
          ? { ...routing, event_action: 'resolve' }
          : {
              ...routing,
              event_action: 'trigger',
              payload: {
                summary: summaryOf(event),
                source: 'cloudplane',
                severity: 'error',
                custom_details: { event_type: event.type, ...event.payload },
              },
            };
      return {
        url: pagerEnqueueUrl(endpoints.pagerUrl),
        headers: JSON_HEADERS,
        body: JSON.stringify(message),
      };
    },
  },
  create: {
    summary: 'Connect a pager service',
    description:
      'The routing key is checked for its form only: the pager has no way to check it without paging; ' +
      'POST /integrations/:id/test sends a trigger and resolves it at once.',
    required: ['integration_key', 'service_id'],
    fields: {
      integration_key: { type: 'string', minLength: 1, maxLength: 64 },
      service_id: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' },
    },
    request: (body) => createRequestOf(body, ['service_id'], ['integration_key']),
    answerFields: { service_id: { type: 'string' } },
  },
};
