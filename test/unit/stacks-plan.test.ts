import { describe, expect, it } from 'vitest';
import {
  KNOWN_AFTER_APPLY,
  SENSITIVE,
  planStack,
  type AppliedEntry,
  type PlanChange,
} from '../../controllers/stacks/plan.js';
import type { StackSection, StackTemplate } from '../../controllers/stacks/template.js';
import { fullTemplate, templateWith, type TemplateEdits } from '../fixtures/stacks.js';

/** What applying `template` left: one entry per entry of every section. */
function appliedFrom(template: StackTemplate): AppliedEntry[] {
  const sections: StackSection[] = ['resources', 'secrets', 'bootstrap', 'services', 'outputs'];
  return sections.flatMap((section) =>
    Object.entries(template[section] ?? {}).map(([name, config]) => ({
      section,
      name,
      config: structuredClone(config),
    })),
  );
}

const APPLIED = appliedFrom(fullTemplate());

function changeOf(template: StackTemplate, resource: string): PlanChange | undefined {
  return planStack(template, APPLIED).changes.find((change) => change.resource === resource);
}

describe('planStack', () => {
  it('creates every entry, in apply order, when nothing was applied', () => {
    const plan = planStack(fullTemplate(), []);
    expect(plan.changes.map(({ type, resource }) => `${type} ${resource}`)).toEqual([
      'create resources.cache',
      'create resources.db',
      'create secrets.admin_password',
      'create bootstrap.migrate',
      'create services.api',
      'create outputs.api_endpoint',
      'create outputs.db_url',
    ]);
    expect(plan.summary).toEqual({ create: 7, update: 0, replace: 0, delete: 0, unchanged: 0 });
    expect(plan.changes[1]!.details).toEqual({
      type: { old: null, new: 'database' },
      'properties.engine': { old: null, new: 'postgresql' },
      'properties.version': { old: null, new: '15' },
      'properties.storage_size': { old: null, new: '10Gi' },
    });
    expect(plan.changes[2]!.details).toEqual({
      type: { old: null, new: 'generated' },
      generator_type: { old: null, new: 'password' },
      length: { old: null, new: 24 },
    });
  });

  it('shows values of entries created in the same plan as known after apply, secrets as sensitive', () => {
    const plan = planStack(fullTemplate(), []);
    const details = (resource: string) =>
      plan.changes.find((change) => change.resource === resource)!.details;
    expect(details('bootstrap.migrate')).toMatchObject({
      'secrets.DATABASE_URL': { old: null, new: SENSITIVE },
      'secrets.ADMIN_PASSWORD': { old: null, new: SENSITIVE },
      'command[1]': { old: null, new: 'up' },
    });
    expect(details('services.api')['properties.values.database.host']).toEqual({
      old: null,
      new: KNOWN_AFTER_APPLY,
    });
    expect(details('outputs.api_endpoint')).toEqual({ value: { old: null, new: KNOWN_AFTER_APPLY } });
    expect(details('outputs.db_url')).toEqual({ value: { old: null, new: SENSITIVE } });
  });

  it('lists nothing when the template is what was applied', () => {
    const plan = planStack(fullTemplate(), APPLIED);
    expect(plan.changes).toEqual([]);
    expect(plan.summary).toEqual({ create: 0, update: 0, replace: 0, delete: 0, unchanged: 7 });
  });

  it.each<[string, TemplateEdits, string, PlanChange['type'], PlanChange['details']]>([
    [
      'a helm value',
      { 'services.api.properties.values.replicaCount': 3 },
      'services.api',
      'update',
      { 'properties.values.replicaCount': { old: 2, new: 3 } },
    ],
    [
      'a new helm value',
      { 'services.api.properties.values.image': { tag: 'v2' } },
      'services.api',
      'update',
      { 'properties.values.image.tag': { old: null, new: 'v2' } },
    ],
    [
      'a larger database',
      { 'resources.db.properties.storage_size': '20Gi' },
      'resources.db',
      'update',
      { 'properties.storage_size': { old: '10Gi', new: '20Gi' } },
    ],
    [
      'the same size written otherwise',
      { 'resources.db.properties.storage_size': '10GB' },
      'resources.db',
      'update',
      { 'properties.storage_size': { old: '10Gi', new: '10GB' } },
    ],
    [
      'a smaller database',
      { 'resources.db.properties.storage_size': '5Gi' },
      'resources.db',
      'replace',
      { 'properties.storage_size': { old: '10Gi', new: '5Gi' } },
    ],
    [
      'another engine',
      { 'resources.db.properties.engine': 'mysql' },
      'resources.db',
      'replace',
      { 'properties.engine': { old: 'postgresql', new: 'mysql' } },
    ],
    [
      'another version',
      { 'resources.db.properties.version': '16' },
      'resources.db',
      'replace',
      { 'properties.version': { old: '15', new: '16' } },
    ],
    [
      'a larger cache',
      { 'resources.cache.properties.memory': '1Gi' },
      'resources.cache',
      'update',
      { 'properties.memory': { old: '256Mi', new: '1Gi' } },
    ],
    [
      'a smaller cache',
      { 'resources.cache.properties.memory': '128Mi' },
      'resources.cache',
      'replace',
      { 'properties.memory': { old: '256Mi', new: '128Mi' } },
    ],
    [
      "the cache's default engine written out",
      { 'resources.cache.properties.engine': 'redis' },
      'resources.cache',
      'update',
      { 'properties.engine': { old: null, new: 'redis' } },
    ],
    [
      'a longer secret',
      { 'secrets.admin_password.length': 32 },
      'secrets.admin_password',
      'replace',
      { length: { old: 24, new: 32 } },
    ],
    [
      'another generator',
      { 'secrets.admin_password.generator_type': 'token' },
      'secrets.admin_password',
      'replace',
      { generator_type: { old: 'password', new: 'token' } },
    ],
    [
      'a job command',
      { 'bootstrap.migrate.command': ['migrate', 'up', '--all'] },
      'bootstrap.migrate',
      'replace',
      { 'command[2]': { old: null, new: '--all' } },
    ],
    [
      'a job timeout',
      { 'bootstrap.migrate.timeout': '10m' },
      'bootstrap.migrate',
      'replace',
      { timeout: { old: '5m', new: '10m' } },
    ],
    [
      'a job secret',
      { 'bootstrap.migrate.secrets.DATABASE_URL': '${resources.cache.connection_string}' },
      'bootstrap.migrate',
      'replace',
      { 'secrets.DATABASE_URL': { old: SENSITIVE, new: SENSITIVE } },
    ],
    [
      'an output',
      { 'outputs.api_endpoint.value': 'https://${services.api.endpoint}/v1' },
      'outputs.api_endpoint',
      'update',
      { value: { old: '${services.api.endpoint}', new: 'https://${services.api.endpoint}/v1' } },
    ],
  ])('plans %s', (_, edits, resource, type, details) => {
    const plan = planStack(templateWith(edits), APPLIED);
    expect(plan.changes).toEqual([{ type, resource, details }]);
  });

  it('writes out a default secret length without generating a new value', () => {
    const applied = appliedFrom({ secrets: { token: { type: 'generated', generator_type: 'token' } } });
    const plan = planStack(
      { secrets: { token: { type: 'generated', generator_type: 'token', length: 32 } } },
      applied,
    );
    expect(plan.changes).toEqual([
      { type: 'update', resource: 'secrets.token', details: { length: { old: null, new: 32 } } },
    ]);
  });

  it('shows a value from an entry replaced in the same plan as known after apply', () => {
    const template = templateWith({
      'resources.db.properties.engine': 'mysql',
      'services.api.properties.values.database': {
        host: '${resources.db.host}',
        port: '${resources.db.port}',
      },
    });
    expect(changeOf(template, 'services.api')).toEqual({
      type: 'update',
      resource: 'services.api',
      details: {
        'properties.values.database.host': { old: '${resources.db.endpoint}', new: KNOWN_AFTER_APPLY },
        'properties.values.database.port': { old: null, new: KNOWN_AFTER_APPLY },
      },
    });
  });

  it('shows a value from an entry updated in place as written', () => {
    const template = templateWith({
      'resources.db.properties.storage_size': '20Gi',
      'services.api.properties.values.database.host': '${resources.db.host}',
    });
    expect(changeOf(template, 'services.api')?.details).toEqual({
      'properties.values.database.host': { old: '${resources.db.endpoint}', new: '${resources.db.host}' },
    });
  });

  it('deletes what the template no longer has, in destroy order, after the rest', () => {
    const template = templateWith({
      services: undefined,
      bootstrap: undefined,
      'outputs.api_endpoint': undefined,
      'resources.cache.properties.memory': '512Mi',
    });
    const plan = planStack(template, APPLIED);
    expect(plan.changes.map(({ type, resource }) => `${type} ${resource}`)).toEqual([
      'update resources.cache',
      'delete outputs.api_endpoint',
      'delete services.api',
      'delete bootstrap.migrate',
    ]);
    expect(plan.changes[1]!.details).toEqual({ value: { old: '${services.api.endpoint}', new: null } });
    expect(plan.changes[3]!.details).toMatchObject({
      image: { old: 'shop/migrate:1.4', new: null },
      'secrets.DATABASE_URL': { old: SENSITIVE, new: null },
    });
    expect(plan.summary).toEqual({ create: 0, update: 1, replace: 0, delete: 3, unchanged: 3 });
  });

  it('counts every kind of change', () => {
    const template = templateWith({
      'resources.search': { type: 'cache' },
      'resources.db.properties.engine': 'mongodb',
      'services.api.properties.values.replicaCount': 4,
      'outputs.db_url': undefined,
    });
    expect(planStack(template, APPLIED).summary).toEqual({
      create: 1,
      update: 1,
      replace: 1,
      delete: 1,
      unchanged: 4,
    });
  });

  describe('plan_digest', () => {
    /** The same value with every object's keys in reverse order. */
    function reversedKeys<T>(value: T): T {
      if (Array.isArray(value)) return value.map(reversedKeys) as T;
      if (typeof value !== 'object' || value === null) return value;
      return Object.fromEntries(
        Object.entries(value)
          .reverse()
          .map(([key, item]) => [key, reversedKeys(item)]),
      ) as T;
    }

    it('is a sha256 that does not depend on key order', () => {
      const template = templateWith({ 'services.api.properties.values.replicaCount': 3 });
      const digest = planStack(template, APPLIED).plan_digest;
      expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(planStack(reversedKeys(template), reversedKeys([...APPLIED].reverse())).plan_digest).toBe(
        digest,
      );
    });

    it.each<[string, StackTemplate, AppliedEntry[]]>([
      ['the template', templateWith({ 'services.api.properties.values.replicaCount': 5 }), APPLIED],
      ['what was applied', fullTemplate(), APPLIED.slice(1)],
      ['nothing applied', fullTemplate(), []],
    ])('changes with %s', (_, template, applied) => {
      expect(planStack(template, applied).plan_digest).not.toBe(
        planStack(fullTemplate(), APPLIED).plan_digest,
      );
    });
  });
});
