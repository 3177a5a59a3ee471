/**
 * The chat provider, Slack-style incoming webhooks: a message is a JSON POST of `{text, channel}`
 * to the webhook URL, answered `ok`. The URL carries its own secret, so it is a credential, and
 * as a tenant-given URL it must pass the outbound rules.
 */
import { createHash } from 'node:crypto';
import type { SafeResponse } from '../../security/egress.js';
import type { IntegrationCredentials } from '../credentials.js';
import { JSON_HEADERS, requiredForDelivery, summaryOf } from '../events/forwarding.js';
import {
  createRequestOf,
  providerRequest,
  ProviderError,
  requiredCredential,
  testByVerifying,
  type ProviderAdapter,
  type ProviderContext,
  type Verified,
} from './provider.js';

/** What a channel is used for. */
export const CHAT_PURPOSES = ['deployments', 'alerts', 'logs'] as const;
export type ChatPurpose = (typeof CHAT_PURPOSES)[number];

/** A chat message as an incoming webhook takes it. */
export interface ChatMessage {
  text: string;
  channel?: string;
}

/** Posts a message to the integration's webhook; answers the response for the caller to record. */
export async function postMessage(
  credentials: IntegrationCredentials,
  message: ChatMessage,
  context: ProviderContext,
): Promise<SafeResponse> {
  return providerRequest(
    'chat',
    requiredCredential(credentials, 'webhook_url'),
    { method: 'POST', json: message },
    context,
  );
}

function channelsOf(configuration: Record<string, unknown>): string[] {
  const channels = configuration.channels;
  if (channels === null || typeof channels !== 'object') return [];
  return [...new Set(Object.values(channels).filter((value): value is string => typeof value === 'string'))];
}

async function verify(
  credentials: IntegrationCredentials,
  configuration: Record<string, unknown>,
  context: ProviderContext,
): Promise<Verified> {
  const channels = channelsOf(configuration);
  for (const channel of channels.length > 0 ? channels : [undefined]) {
    const response = await postMessage(
      credentials,
      { text: 'cloudplane is connected to this channel.', ...(channel === undefined ? {} : { channel }) },
      context,
    );
    if (response.ok) continue;
    const answer = (await response.text()).slice(0, 200);
    const where = channel === undefined ? 'the webhook' : `channel ${channel}`;
    if ([400, 401, 403, 404, 410].includes(response.status)) {
      const field = /channel/.test(answer) ? 'channels' : 'webhook_url';
      throw new ProviderError('rejected', `chat refused a message to ${where}: ${answer}`, field);
    }
    throw new ProviderError('unreachable', `chat answered ${response.status} to a message to ${where}`);
  }
  const fingerprint = createHash('sha256')
    .update(requiredCredential(credentials, 'webhook_url'))
    .digest('hex');
  return { accountKey: `webhook:${fingerprint.slice(0, 24)}`, configuration: {} };
}

export const chatProvider: ProviderAdapter = {
  type: 'chat',
  settings: {
    configuration: {
      channels: (value, field) => {
        if (value === null || typeof value !== 'object' || Array.isArray(value)) {
          return `${field} must map purposes (${CHAT_PURPOSES.join(', ')}) to channel names`;
        }
        for (const [purpose, channel] of Object.entries(value)) {
          if (!(CHAT_PURPOSES as readonly string[]).includes(purpose)) {
            return `${field}.${purpose} is not a purpose; use ${CHAT_PURPOSES.join(', ')}`;
          }
          if (typeof channel !== 'string' || !/^#?[a-z0-9][a-z0-9_-]{0,79}$/.test(channel)) {
            return `${field}.${purpose} must be a channel name such as #deployments`;
          }
        }
        return undefined;
      },
    },
    requiredConfiguration: [],
    credentials: { required: ['webhook_url'], optional: [], outboundUrls: ['webhook_url'] },
  },
  verify,
  test: (credentials, configuration, context) =>
    testByVerifying(() => verify(credentials, configuration, context)),
  events: {
    // An event goes to the channel configured for its purpose (deployments, alerts, logs).
    target(configuration, definition) {
      const channels = configuration.channels as Record<string, unknown> | undefined;
      const channel = channels?.[definition.purpose];
      return typeof channel === 'string' ? channel : undefined;
    },
    request: (channel, event, _configuration, credentials) => ({
      url: requiredForDelivery(credentials, 'webhook_url'),
      headers: JSON_HEADERS,
      body: JSON.stringify({ text: `[${event.type}] ${summaryOf(event)}`, channel }),
    }),
  },
  create: {
    summary: 'Connect a chat workspace through an incoming webhook',
    description: 'A test message is posted to each channel; the webhook URL must be a public https URL.',
    required: ['webhook_url', 'channels'],
    fields: {
      webhook_url: { type: 'string', minLength: 1, maxLength: 2048 },
      channels: {
        type: 'object',
        propertyNames: { enum: CHAT_PURPOSES },
        additionalProperties: { type: 'string', maxLength: 80 },
      },
    },
    request: (body) => createRequestOf(body, ['channels'], ['webhook_url']),
    answerFields: { channels: { type: 'object' } },
  },
};
