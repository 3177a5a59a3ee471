/**
 * What each integration type accepts: its configuration keys and values, and its credential
 * keys. Pure checks, so the facade can answer 422 (configuration) and 400 (credentials) before
 * anything is stored.
 */
import type { IntegrationType } from '../../crds/integration.js';
import { CHAT_PURPOSES } from '../../integrations/providers/chat.js';
import { MONITOR_SITES, MONITOR_TAG } from '../../integrations/providers/monitor.js';
import { PAGER_KEY } from '../../integrations/providers/pager.js';

/** One thing wrong with a request, naming the field. */
export interface IntegrationProblem {
  field: string;
  message: string;
}

/** Inbound codehost events an integration may subscribe to. */
export const CODEHOST_EVENTS = ['push', 'pull_request', 'release'] as const;

const REPOSITORY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const ZONE = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

type ValueCheck = (value: unknown, field: string) => string | undefined;

const stringArray =
  (check: (item: string) => boolean, what: string): ValueCheck =>
  (value, field) => {
    if (!Array.isArray(value)) return `${field} must be an array of ${what}`;
    const bad = value.find((item) => typeof item !== 'string' || !check(item));
    return bad === undefined ? undefined : `${field} has ${JSON.stringify(bad)}, which is not ${what}`;
  };

const text: ValueCheck = (value, field) =>
  typeof value === 'string' && value.trim() !== '' ? undefined : `${field} must be a non-empty string`;

const CONFIGURATION_KEYS: Record<IntegrationType, Record<string, ValueCheck>> = {
  codehost: {
    installation_id: (value, field) =>
      typeof value === 'string' && /^\d+$/.test(value) ? undefined : `${field} must be a numeric string`,
    organization: text,
    repositories: stringArray((item) => REPOSITORY.test(item), 'an owner/repo name'),
    events: stringArray(
      (item) => (CODEHOST_EVENTS as readonly string[]).includes(item),
      CODEHOST_EVENTS.join(', '),
    ),
    webhook_events: stringArray(
      (item) => (CODEHOST_EVENTS as readonly string[]).includes(item),
      CODEHOST_EVENTS.join(', '),
    ),
  },
  edgenet: {
    zones: stringArray((item) => ZONE.test(item), 'a zone name such as example.com'),
  },
  monitor: {
    site: (value, field) =>
      MONITOR_SITES.includes(value as never)
        ? undefined
        : `${field} must be one of ${MONITOR_SITES.join(', ')}`,
    tags: stringArray((item) => MONITOR_TAG.test(item), 'a key:value tag'),
  },
  pager: { service_id: text },
  chat: {
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
};

/** The configuration keys each type requires. */
const REQUIRED_CONFIGURATION: Record<IntegrationType, string[]> = {
  codehost: [],
  edgenet: [],
  monitor: ['site'],
  pager: [],
  chat: [],
};

/** Problems with a configuration for `type` (422); `prefix` names where it sits in the body. */
export function configurationProblems(
  type: IntegrationType,
  configuration: Record<string, unknown>,
  prefix = 'configuration',
): IntegrationProblem[] {
  const known = CONFIGURATION_KEYS[type];
  const problems: IntegrationProblem[] = [];
  for (const [key, value] of Object.entries(configuration)) {
    const field = prefix === '' ? key : `${prefix}.${key}`;
    const check = known[key];
    if (check === undefined) {
      problems.push({
        field,
        message: `${field} is not a ${type} setting; expected ${Object.keys(known).join(', ')}`,
      });
      continue;
    }
    const message = check(value, field);
    if (message !== undefined) problems.push({ field, message });
  }
  for (const key of REQUIRED_CONFIGURATION[type]) {
    const field = prefix === '' ? key : `${prefix}.${key}`;
    if (!(key in configuration)) problems.push({ field, message: `${field} is required for ${type}` });
  }
  return problems;
}

const CREDENTIAL_KEYS: Record<IntegrationType, { required: string[]; optional: string[] }> = {
  codehost: { required: ['token'], optional: [] },
  edgenet: { required: ['api_token'], optional: [] },
  monitor: { required: ['api_key'], optional: ['app_key'] },
  pager: { required: ['integration_key'], optional: [] },
  chat: { required: ['webhook_url'], optional: [] },
};

/** Problems with generic-create credentials for `type` (400). */
export function credentialProblems(
  type: IntegrationType,
  credentials: Record<string, unknown>,
): IntegrationProblem[] {
  const { required, optional } = CREDENTIAL_KEYS[type];
  const problems: IntegrationProblem[] = [];
  for (const key of Object.keys(credentials)) {
    if (![...required, ...optional].includes(key)) {
      problems.push({
        field: `credentials.${key}`,
        message: `credentials.${key} is not a ${type} credential; expected ${[...required, ...optional].join(', ')}`,
      });
    } else if (typeof credentials[key] !== 'string' || (credentials[key] as string).trim() === '') {
      problems.push({
        field: `credentials.${key}`,
        message: `credentials.${key} must be a non-empty string`,
      });
    }
  }
  for (const key of required) {
    if (!(key in credentials))
      problems.push({ field: `credentials.${key}`, message: `credentials.${key} is required` });
  }
  if (
    type === 'pager' &&
    typeof credentials.integration_key === 'string' &&
    !PAGER_KEY.test(credentials.integration_key)
  ) {
    problems.push({
      field: 'credentials.integration_key',
      message: 'credentials.integration_key must be 32 letters and digits',
    });
  }
  return problems;
}
