import { describe, expect, it } from 'vitest';
import { configurationProblems, credentialProblems } from '../../controllers/integration/validation.js';
import type { IntegrationType } from '../../crds/integration.js';

describe('configurationProblems', () => {
  it.each<[string, IntegrationType, Record<string, unknown>]>([
    [
      'codehost repositories and events',
      'codehost',
      { repositories: ['acme/api'], events: ['push', 'release'] },
    ],
    ['edgenet zones', 'edgenet', { zones: ['example.com', 'sub.example.co.uk'] }],
    ['a monitor site with tags', 'monitor', { site: 'datadoghq.eu', tags: ['env:prod', 'team:core'] }],
    ['a pager service id', 'pager', { service_id: 'PSVC1' }],
    [
      'chat channels by purpose',
      'chat',
      { channels: { deployments: '#deploys', alerts: 'alerts', logs: '#logs' } },
    ],
    ['no configuration for chat', 'chat', {}],
  ])('accepts %s', (_case, type, configuration) => {
    expect(configurationProblems(type, configuration)).toEqual([]);
  });

  it.each<[string, IntegrationType, Record<string, unknown>, string]>([
    ['a key of another type', 'chat', { zones: ['example.com'] }, 'configuration.zones'],
    ['a repository without owner', 'codehost', { repositories: ['api'] }, 'configuration.repositories'],
    ['an event that cannot be subscribed', 'codehost', { events: ['fork'] }, 'configuration.events'],
    ['a zone that is not a domain', 'edgenet', { zones: ['not a zone'] }, 'configuration.zones'],
    ['a monitor without site', 'monitor', { tags: [] }, 'configuration.site'],
    ['a monitor site of no one', 'monitor', { site: 'example.com' }, 'configuration.site'],
    ['a tag without value', 'monitor', { site: 'datadoghq.com', tags: ['prod'] }, 'configuration.tags'],
    [
      'a chat purpose that does not exist',
      'chat',
      { channels: { sales: '#sales' } },
      'configuration.channels.sales',
    ],
    [
      'a chat channel that is not a name',
      'chat',
      { channels: { alerts: 'Alerts Room' } },
      'configuration.channels.alerts',
    ],
  ])('names %s', (_case, type, configuration, field) => {
    const problems = configurationProblems(type, configuration);
    expect(problems).toHaveLength(1);
    expect(field.startsWith(problems[0]!.field)).toBe(true);
    expect(problems[0]!.message).toContain(field);
  });
});

describe('credentialProblems', () => {
  it.each<[IntegrationType, Record<string, unknown>, string[]]>([
    ['codehost', { token: 'ghp_x' }, []],
    ['monitor', { api_key: 'k', app_key: 'a' }, []],
    ['pager', { integration_key: 'a'.repeat(32) }, []],
    ['chat', {}, ['credentials.webhook_url']],
    ['edgenet', { api_token: '' }, ['credentials.api_token']],
    ['monitor', { api_key: 'k', password: 'p' }, ['credentials.password']],
    ['pager', { integration_key: 'too-short' }, ['credentials.integration_key']],
  ])('%s %j → %j', (type, credentials, fields) => {
    expect(credentialProblems(type, credentials).map((problem) => problem.field)).toEqual(fields);
  });
});
