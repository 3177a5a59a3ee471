import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EVENT_CATALOGUE,
  filterSelects,
  type PlatformEventType,
} from '../../integrations/events/catalogue.js';
import { publishEvent } from '../../integrations/events/publisher.js';
import { backoffDelayMs, retryAfterMs } from '../../integrations/events/retry-schedule.js';
import { codehostSignatureValid } from '../../integrations/events/signatures.js';
import type { IntegrationSpec } from '../../crds/integration.js';
import {
  newOrganizationId,
  startEventPlatform,
  type EventPlatform,
} from '../fixtures/event-receiver-platform.js';

const CHAT_ALERTS_ONLY: IntegrationSpec = {
  type: 'chat',
  name: 'alerts',
  configuration: { channels: { alerts: '#a' } },
};
const CHAT_ALL: IntegrationSpec = {
  type: 'chat',
  name: 'all',
  configuration: { channels: { deployments: '#d', alerts: '#a', logs: '#l' } },
};
const PAGER: IntegrationSpec = { type: 'pager', name: 'pager', configuration: { service_id: 'P1' } };
const MONITOR_VPC_ONLY: IntegrationSpec = {
  type: 'monitor',
  name: 'monitor',
  configuration: { site: 'datadoghq.com', events: ['vpc.*'] },
};
const CODEHOST: IntegrationSpec = { type: 'codehost', name: 'code', configuration: { events: ['push'] } };
const CODEHOST_WITH_URL: IntegrationSpec = {
  type: 'codehost',
  name: 'code hook',
  configuration: { events: ['push'], event_webhook_url: 'https://hooks.example.com/in' },
};
const DISABLED_CHAT: IntegrationSpec = { ...CHAT_ALL, name: 'off', enabled: false };

describe('publishing an event', () => {
  let platform: EventPlatform;
  beforeEach(async () => {
    platform = await startEventPlatform();
  });
  afterEach(() => platform.close());

  it.each<[string, IntegrationSpec, PlatformEventType, boolean]>([
    ['chat with an alerts channel takes an alert', CHAT_ALERTS_ONLY, 'vault_cluster.sealed', true],
    ['chat without a deployments channel skips a deployment', CHAT_ALERTS_ONLY, 'vpc.created', false],
    ['chat with every channel takes a log event', CHAT_ALL, 'resource.updated', true],
    ['the pager takes a failure', PAGER, 'stack.failed', true],
    ['the pager takes the recovery that resolves it', PAGER, 'stack.applied', true],
    ['the pager skips what is not alert-like', PAGER, 'vpc.created', false],
    ['an events filter admits what it names', MONITOR_VPC_ONLY, 'vpc.available', true],
    ['an events filter refuses what it does not name', MONITOR_VPC_ONLY, 'stack.created', false],
    ['a code host takes no events', CODEHOST, 'vpc.created', false],
    ['a code host with an event webhook URL takes them there', CODEHOST_WITH_URL, 'vpc.created', true],
    ['a disabled integration takes nothing', DISABLED_CHAT, 'stack.failed', false],
  ])('%s', async (_case, spec, type, recorded) => {
    const integrationId = await platform.addIntegration(spec);
    const ids = await publishEvent(
      { database: platform.database, store: platform.store, now: () => platform.clock.now() },
      { organizationId: platform.organizationId, type, subject: 'thing-1', payload: {} },
    );
    const rows = await platform.database.kysely.selectFrom('integration_events').selectAll().execute();
    expect(ids).toHaveLength(recorded ? 1 : 0);
    expect(rows.map((row) => [row.integration_id, row.event_type, row.status])).toEqual(
      recorded ? [[integrationId, type, 'pending']] : [],
    );
  });

  it("records nothing for another organization's integrations", async () => {
    await platform.addIntegration(CHAT_ALL, {}, newOrganizationId());
    const ids = await publishEvent(
      { database: platform.database, store: platform.store, now: () => platform.clock.now() },
      { organizationId: platform.organizationId, type: 'vpc.created', subject: 'vpc-1', payload: {} },
    );
    expect(ids).toEqual([]);
  });
});

describe('the event catalogue', () => {
  it('names every event <subject>.<verb>, the verb one word or snake_case (organization.member_added)', () => {
    for (const type of Object.keys(EVENT_CATALOGUE)) expect(type).toMatch(/^[a-z_]+\.[a-z]+(_[a-z]+)*$/);
  });

  it.each([
    ['*', 'vpc.created', true],
    ['vpc.created', 'vpc.created', true],
    ['vpc.*', 'vpc.deleted', true],
    ['vpc.*', 'vault_cluster.sealed', false],
    ['stack.failed', 'stack.applied', false],
  ] as const)('filter entry %s selects %s: %s', (entry, type, selected) => {
    expect(filterSelects(entry, type)).toBe(selected);
  });
});

describe('retry timing', () => {
  const schedule = { baseMs: 1_000, capMs: 30_000, maxAttempts: 8 };

  it.each([
    [1, 0.5, 500],
    [2, 0.5, 1_000],
    [5, 0.999, 15_984],
    [9, 0.999, 29_970],
    [3, 0, 0],
  ])('after attempt %i with jitter %d waits %i ms', (attempt, random, expected) => {
    expect(backoffDelayMs(attempt, schedule, () => random)).toBe(expected);
  });

  const now = new Date('2026-03-01T09:00:00Z');
  it.each([
    ['120', 120_000],
    ['Sun, 01 Mar 2026 09:05:00 GMT', 300_000],
    ['Sun, 01 Mar 2026 08:00:00 GMT', 0],
    ['soon', undefined],
    [null, undefined],
  ])('reads Retry-After %s as %s ms', (header, expected) => {
    expect(retryAfterMs(header, now)).toBe(expected);
  });
});

describe('code host signatures', () => {
  // The example GitHub documents for validating deliveries.
  const body = Buffer.from('Hello, World!');
  const secret = "It's a Secret to Everybody";

  it.each([
    [
      'the documented digest',
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
      true,
    ],
    ['a missing header', undefined, false],
    ['another scheme', 'sha1=abc', false],
    ['a truncated digest', 'sha256=abcd', false],
    ['a digest of another body', `sha256=${'0'.repeat(64)}`, false],
  ])('judges %s: valid %s', (_case, header, valid) => {
    expect(codehostSignatureValid(secret, body, header)).toBe(valid);
  });
});
