/**
 * The monitor provider, Datadog's API on one of its sites: keys are checked with
 * `/api/v1/validate`; events and metric series are submitted for event forwarding.
 */
import { createHash } from 'node:crypto';
import type { MonitorSite } from '../../config/integrations.js';
import type { SafeResponse } from '../../security/egress.js';
import type { IntegrationCredentials } from '../credentials.js';
import { definitionOf } from '../events/catalogue.js';
import { JSON_HEADERS, requiredForDelivery, summaryOf, UndeliverableError } from '../events/forwarding.js';
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

export const MONITOR_SITES: readonly MonitorSite[] = ['datadoghq.com', 'datadoghq.eu'];

/** `key:value` with a lowercase key, as the monitor's tags are written. */
export const MONITOR_TAG = /^[a-z][a-z0-9_.\-/]*:[^\s,]+$/;

function siteOf(configuration: Record<string, unknown>): MonitorSite {
  const site = configuration.site;
  if (!MONITOR_SITES.includes(site as MonitorSite)) {
    throw new ProviderError('invalid', `site must be one of ${MONITOR_SITES.join(', ')}`, 'site');
  }
  return site as MonitorSite;
}

/** The header an API key travels in, on every monitor request. */
const MONITOR_API_KEY_HEADER = 'dd-api-key';

/** Where events are posted on a monitoring site's API base. */
function monitorEventsUrl(base: string): string {
  return `${base.replace(/\/+$/, '')}/api/v1/events`;
}

function keyHeaders(credentials: IntegrationCredentials): Record<string, string> {
  const headers: Record<string, string> = {
    [MONITOR_API_KEY_HEADER]: requiredCredential(credentials, 'api_key'),
  };
  if (credentials.app_key) headers['dd-application-key'] = credentials.app_key;
  return headers;
}

function endpoint(context: ProviderContext, configuration: Record<string, unknown>, path: string): string {
  return `${context.config.monitorUrls[siteOf(configuration)].replace(/\/+$/, '')}${path}`;
}

async function refusal(response: SafeResponse, what: string): Promise<never> {
  const body = (await jsonBody(response)) as { errors?: unknown[] } | undefined;
  const reason = body?.errors?.map(String).join('; ') || `HTTP ${response.status}`;
  if (response.status === 401 || response.status === 403) {
    throw new ProviderError('rejected', `monitor refused ${what}: ${reason}`, 'api_key');
  }
  throw new ProviderError('unreachable', `monitor could not accept ${what}: ${reason}`);
}

async function verify(
  credentials: IntegrationCredentials,
  configuration: Record<string, unknown>,
  context: ProviderContext,
): Promise<Verified> {
  const response = await providerRequest(
    'monitor',
    endpoint(context, configuration, '/api/v1/validate'),
    { headers: keyHeaders(credentials) },
    context,
  );
  if (!response.ok) return refusal(response, 'the API key');
  const valid = ((await jsonBody(response)) as { valid?: unknown } | undefined)?.valid;
  if (valid !== true) throw new ProviderError('rejected', 'monitor says the API key is not valid', 'api_key');
  const fingerprint = createHash('sha256').update(requiredCredential(credentials, 'api_key')).digest('hex');
  return { accountKey: `${siteOf(configuration)}:${fingerprint.slice(0, 24)}`, configuration: {} };
}

function stringTags(configuration: Record<string, unknown>): string[] {
  const tags = configuration.tags;
  return Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : [];
}

export const monitorProvider: ProviderAdapter = {
  type: 'monitor',
  settings: {
    configuration: {
      site: (value, field) =>
        MONITOR_SITES.includes(value as never)
          ? undefined
          : `${field} must be one of ${MONITOR_SITES.join(', ')}`,
      tags: stringArray((item) => MONITOR_TAG.test(item), 'a key:value tag'),
    },
    requiredConfiguration: ['site'],
    credentials: { required: ['api_key'], optional: ['app_key'] },
  },
  verify,
  test: (credentials, configuration, context) =>
    testByVerifying(() => verify(credentials, configuration, context)),
  events: {
    // Every event goes to the configured site, as an event of the monitor's own.
    target: (configuration) => (typeof configuration.site === 'string' ? configuration.site : undefined),
    request(site, event, configuration, credentials, endpoints) {
      const base = endpoints.monitorSites[site];
      if (base === undefined) throw new UndeliverableError(`unknown monitoring site ${site}`);
      const alert = definitionOf(event.type).purpose === 'alerts';
      return {
        url: monitorEventsUrl(base),
        headers: { ...JSON_HEADERS, [MONITOR_API_KEY_HEADER]: requiredForDelivery(credentials, 'api_key') },
        body: JSON.stringify({
          title: `cloudplane ${event.type}`,
          text: summaryOf(event),
          tags: [...stringTags(configuration), `event_type:${event.type}`, `subject:${event.subject}`],
          alert_type: alert ? 'error' : 'info',
          aggregation_key: event.subject,
          source_type_name: 'cloudplane',
        }),
      };
    },
  },
  create: {
    summary: 'Connect a monitor account',
    required: ['api_key', 'site'],
    fields: {
      api_key: SECRET_FIELD,
      app_key: SECRET_FIELD,
      site: { type: 'string', enum: MONITOR_SITES, 'x-domain-rule': true },
      tags: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 200 } },
    },
    request: (body) =>
      createRequestOf(
        { ...body, tags: once((body.tags as string[] | undefined) ?? []) },
        ['site', 'tags'],
        ['api_key', 'app_key'],
      ),
    answerFields: { tags: { type: 'array', items: { type: 'string' } } },
  },
};
