import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { organizationNamespace } from '../../accounts/organizations.js';
import { eventsForChange, startEventBridge } from '../../integrations/events/event-bridge.js';
import type { KubeObject } from '../../control-plane/types.js';
import { INTEGRATION, type IntegrationSpec } from '../../crds/integration.js';
import { createLogger } from '../../observability/logger.js';
import { eventually } from '../fixtures/eventually.js';
import { startEventPlatform, type EventPlatform } from '../fixtures/event-receiver-platform.js';

function resource(
  kind: string,
  status: Record<string, unknown> = {},
  generation = 1,
  name = 'id-1',
): KubeObject {
  return {
    apiVersion: 'cloudplane.dev/v1alpha1',
    kind,
    metadata: { name, namespace: 'org-aaaa', generation },
    spec: { name: 'display' },
    status,
  };
}

describe('eventsForChange', () => {
  it.each<[string, KubeObject | undefined, KubeObject | undefined, string[]]>([
    ['a new VPC', undefined, resource('Vpc'), ['vpc.created']],
    ['a deleted VPC', resource('Vpc'), undefined, ['vpc.deleted']],
    ['a VPC spec change', resource('Vpc', {}, 1), resource('Vpc', {}, 2), ['vpc.updated']],
    [
      'a VPC becoming available',
      resource('Vpc', { phase: 'provisioning' }),
      resource('Vpc', { phase: 'available' }),
      ['vpc.available'],
    ],
    [
      'a status write that changes nothing that matters',
      resource('Vpc', { phase: 'available' }),
      resource('Vpc', { phase: 'available' }),
      [],
    ],
    [
      'a phase the catalogue does not name',
      resource('Vpc', { phase: 'available' }),
      resource('Vpc', { phase: 'deleting' }),
      [],
    ],
    [
      'a vault cluster sealed',
      resource('VaultCluster', { phase: 'running', sealed: false }),
      resource('VaultCluster', { phase: 'sealed', sealed: true }),
      ['vault_cluster.sealed'],
    ],
    [
      'a vault cluster unsealed',
      resource('VaultCluster', { phase: 'sealed', sealed: true }),
      resource('VaultCluster', { phase: 'running', sealed: false }),
      ['vault_cluster.unsealed'],
    ],
    [
      'a new vault cluster reporting sealed for the first time',
      resource('VaultCluster', {}),
      resource('VaultCluster', { phase: 'sealed', sealed: true }),
      ['vault_cluster.sealed'],
    ],
    [
      'an integration connected',
      resource('Integration', { phase: 'pending' }),
      resource('Integration', { phase: 'connected' }),
      ['integration.connected'],
    ],
    [
      'an integration failing',
      resource('Integration', { phase: 'connected' }),
      resource('Integration', { phase: 'error' }),
      ['integration.error'],
    ],
    [
      'a database becoming available',
      resource('Database', { phase: 'provisioning' }),
      resource('Database', { phase: 'available' }),
      ['database.available'],
    ],
    [
      'a database whose server went away',
      resource('Database', { phase: 'available' }),
      resource('Database', { phase: 'degraded' }),
      ['database.degraded'],
    ],
    ['a database only recorded', resource('Database', {}), resource('Database', { phase: 'recorded' }), []],
    [
      'a backup completing',
      resource('Backup', { phase: 'running' }),
      resource('Backup', { phase: 'completed' }),
      ['backup.completed'],
    ],
    ['a new share', undefined, resource('NfsShare'), ['nfs_share.created']],
    ['a kind the bridge does not follow', undefined, resource('Subnet'), []],
  ])('%s', (_case, previous, current, types) => {
    expect(eventsForChange(previous, current).map((event) => event.type)).toEqual(types);
  });

  it('names the resource as subject and in the payload', () => {
    expect(eventsForChange(undefined, resource('Vpc', { phase: 'provisioning' }))).toEqual([
      {
        type: 'vpc.created',
        subject: 'id-1',
        payload: { id: 'id-1', name: 'display', kind: 'Vpc', phase: 'provisioning' },
      },
    ]);
  });
});

function execution(
  operation: 'apply' | 'destroy',
  status?: string,
  extra: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion: 'cloudplane.dev/v1alpha1',
    kind: 'StackExecution',
    metadata: { name: 'exec-0a1b2c3d4e5f', namespace: 'org-aaaa', generation: 1 },
    spec: { stack: 'stk-0a1b2c3d4e5f', operation, basedOnVersion: 2, ...extra },
    status:
      status === undefined
        ? {}
        : { status, ...(status === 'failed' ? { error: 'bootstrap.migrate failed' } : {}) },
  };
}

describe('eventsForChange of stack executions', () => {
  it.each<[string, KubeObject | undefined, KubeObject | undefined, string[]]>([
    ['an apply starting', undefined, execution('apply'), []],
    ['an apply running', execution('apply'), execution('apply', 'running'), []],
    [
      'an apply completing',
      execution('apply', 'running'),
      execution('apply', 'completed'),
      ['stack.applied'],
    ],
    ['an apply failing', execution('apply', 'running'), execution('apply', 'failed'), ['stack.failed']],
    [
      'a destroy completing',
      execution('destroy', 'running'),
      execution('destroy', 'completed'),
      ['stack.destroyed'],
    ],
    ['a dry run completing', execution('apply'), execution('apply', 'completed', { dryRun: true }), []],
    [
      'a completed execution written again',
      execution('apply', 'completed'),
      execution('apply', 'completed'),
      [],
    ],
    ['an execution deleted with its stack', execution('apply', 'completed'), undefined, []],
  ])('%s', (_case, previous, current, types) => {
    expect(eventsForChange(previous, current).map((event) => event.type)).toEqual(types);
  });

  it('names the stack, the execution and the error', () => {
    expect(eventsForChange(execution('apply', 'running'), execution('apply', 'failed'))).toEqual([
      {
        type: 'stack.failed',
        subject: 'stk-0a1b2c3d4e5f',
        payload: {
          id: 'stk_0a1b2c3d4e5f',
          kind: 'Stack',
          execution_id: 'exec_0a1b2c3d4e5f',
          operation: 'apply',
          version: 2,
          error: 'bootstrap.migrate failed',
        },
      },
    ]);
  });
});

describe('the event bridge', () => {
  let platform: EventPlatform;
  beforeEach(async () => {
    platform = await startEventPlatform();
  });
  afterEach(() => platform.close());

  const listener: IntegrationSpec = {
    type: 'chat',
    name: 'everything',
    configuration: { channels: { deployments: '#d', alerts: '#a', logs: '#l' } },
  };

  it('publishes what happens after it starts, not what already existed', async () => {
    const receiver = await platform.addIntegration(listener);
    const bridge = startEventBridge({
      database: platform.database,
      store: platform.store,
      now: () => platform.clock.now(),
      logger: createLogger('silent'),
      kinds: [INTEGRATION],
    });
    await bridge.synced();
    const added = await platform.addIntegration({
      type: 'pager',
      name: 'pager',
      configuration: { service_id: 'P1' },
    });
    await platform.store.delete(INTEGRATION, organizationNamespace(platform.organizationId), added);

    const recorded = async () =>
      (await platform.database.kysely.selectFrom('integration_events').selectAll().execute())
        .filter((row) => row.integration_id === receiver)
        .map((row) => [row.event_type, (JSON.parse(row.payload) as { id: string }).id]);
    await eventually(async () =>
      expect(await recorded()).toEqual([
        ['integration.created', added],
        ['integration.deleted', added],
      ]),
    );
    await bridge.stop();
  });
});
