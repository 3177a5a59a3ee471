import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KIND } from '../../control-plane/built-in-kinds.js';
import type { CoreEvent } from '../../control-plane/event-objects.js';
import type { KindDescriptor } from '../../control-plane/kind-descriptor.js';
import type { Condition, KubeObject } from '../../control-plane/types.js';
import { BACKUP, DATABASE, NFS_SHARE, RESTORE } from '../../crds/data-services.js';
import { KINDS } from '../../crds/index.js';
import { INTEGRATION } from '../../crds/integration.js';
import { STACK, STACK_EXECUTION } from '../../crds/stacks.js';
import { STREAMING_CLUSTER, STREAMING_TOPIC, STREAMING_USER } from '../../crds/streaming.js';
import { VAULT_CLUSTER } from '../../crds/vault-cluster.js';
import {
  INTERNET_GATEWAY,
  NAT_GATEWAY,
  NETWORK_ACL,
  ROUTE_TABLE,
  SECURITY_GROUP,
  SUBNET,
  VPC,
} from '../../crds/vpc.js';
import { storeCredentials } from '../../integrations/credentials.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

/**
 * kstatus as Flux and Argo CD read it, for the kinds' controllers: an object converges to
 * `Ready` True for its generation, and one that cannot progress says `Stalled` True with the
 * reason, next to a Warning Event with the same reason.
 */

const NAMESPACE = 'org-kstatus';
const VPC_NAME = 'a7e0c1d2-0000-4000-8000-000000000001';
const SUBNET_NAME = 'a7e0c1d2-0000-4000-8000-000000000002';

/** The kinds each half of the walk saw: every kind must be seen both Ready and Stalled. */
const seenReady = new Set<string>();
const seenStalled = new Set<string>();

type Status = { observedGeneration?: number; conditions?: Condition[] };

function object(kind: KindDescriptor, name: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: `${kind.group}/${kind.version}`,
    kind: kind.kind,
    metadata: { name, namespace: NAMESPACE },
    spec,
  };
}

function condition(found: KubeObject, type: string): Condition | undefined {
  return (found.status as Status | undefined)?.conditions?.find((entry) => entry.type === type);
}

describe('every kind follows kstatus and records why it is stuck', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(async () => {
    await platform?.close();
  });

  const read = (kind: KindDescriptor, name: string) => platform.store.get(kind, NAMESPACE, name);

  const eventsAbout = async (found: KubeObject): Promise<CoreEvent[]> => {
    const list = await platform.store.list(EVENT_KIND, { namespace: NAMESPACE });
    return (list.items as unknown as CoreEvent[]).filter(
      (event) => event.involvedObject.uid === found.metadata.uid,
    );
  };

  /** Ready True for the object's generation, observedGeneration caught up: kstatus' Current. */
  const expectCurrent = async (kind: KindDescriptor, name: string): Promise<KubeObject> =>
    eventually(async () => {
      const found = await read(kind, name);
      const ready = condition(found, 'Ready');
      expect(ready).toMatchObject({ status: 'True', observedGeneration: found.metadata.generation });
      expect((found.status as Status).observedGeneration).toBe(found.metadata.generation);
      expect(condition(found, 'Stalled')?.status ?? 'False').toBe('False');
      seenReady.add(kind.kind);
      return found;
    });

  it('a VPC and its default parts, a subnet and an internet gateway become Ready, with Normal events', async () => {
    await platform.store.create(
      VPC,
      object(VPC, 'a7e0c1d2-0000-4000-8000-000000000001', {
        name: 'main',
        cidrBlock: '10.70.0.0/16',
        region: 'us-east-1',
      }),
    );
    const vpc = await expectCurrent(VPC, 'a7e0c1d2-0000-4000-8000-000000000001');
    const status = vpc.status as Record<string, string>;
    await expectCurrent(ROUTE_TABLE, status.mainRouteTableId!);
    await expectCurrent(NETWORK_ACL, status.defaultNetworkAclId!);
    await expectCurrent(SECURITY_GROUP, status.defaultSecurityGroupId!);
    await platform.store.create(
      SUBNET,
      object(SUBNET, 'a7e0c1d2-0000-4000-8000-000000000002', {
        vpcRef: vpc.metadata.name,
        name: 'web',
        cidrBlock: '10.70.1.0/24',
        availabilityZone: 'us-east-1a',
      }),
    );
    await expectCurrent(SUBNET, 'a7e0c1d2-0000-4000-8000-000000000002');
    await platform.store.create(
      INTERNET_GATEWAY,
      object(INTERNET_GATEWAY, 'a7e0c1d2-0000-4000-8000-000000000003', { vpcRef: vpc.metadata.name }),
    );
    const gateway = await expectCurrent(INTERNET_GATEWAY, 'a7e0c1d2-0000-4000-8000-000000000003');
    expect(condition(gateway, 'Ready')?.message).toBe(`available in VPC ${VPC_NAME}`);
    const events = await eventually(async () => {
      const found = await eventsAbout(vpc);
      expect(found.map((event) => event.reason)).toContain('Available');
      return found;
    });
    expect(events.every((event) => event.type === 'Normal')).toBe(true);
  });

  it('a vault cluster that unseals itself becomes Ready', async () => {
    await platform.store.create(
      VAULT_CLUSTER,
      object(VAULT_CLUSTER, 'team', { name: 'team secrets', autoUnseal: true }),
    );
    const vault = await expectCurrent(VAULT_CLUSTER, 'team');
    expect(condition(vault, 'Ready')?.reason).toBe('Unsealed');
  });

  it('a NAT gateway, a database, its backup and restore, and a share become Ready', async () => {
    await platform.store.create(
      NAT_GATEWAY,
      object(NAT_GATEWAY, 'a7e0c1d2-0000-4000-8000-000000000004', {
        vpcRef: VPC_NAME,
        subnetId: SUBNET_NAME,
      }),
    );
    await platform.store.create(DATABASE, object(DATABASE, 'pg', { name: 'pg', engine: 'postgresql' }));
    await platform.store.create(NFS_SHARE, object(NFS_SHARE, 'share', { name: 'share', sizeGb: 1 }));
    await expectCurrent(NAT_GATEWAY, 'a7e0c1d2-0000-4000-8000-000000000004');
    await expectCurrent(DATABASE, 'pg');
    await expectCurrent(NFS_SHARE, 'share');
    // Backups and restores end, as Jobs do: Ready once completed.
    await platform.store.create(
      BACKUP,
      object(BACKUP, 'pg-backup', { source: { kind: 'Database', name: 'pg' }, retentionDays: 1 }),
    );
    expect(condition(await expectCurrent(BACKUP, 'pg-backup'), 'Ready')?.reason).toBe('Completed');
    await platform.store.create(
      RESTORE,
      object(RESTORE, 'pg-restore', { backup: 'pg-backup', target: 'pg' }),
    );
    expect(condition(await expectCurrent(RESTORE, 'pg-restore'), 'Ready')?.reason).toBe('Completed');
  });

  it('a streaming cluster, its topic and its user become Ready', async () => {
    await platform.store.create(
      STREAMING_CLUSTER,
      object(STREAMING_CLUSTER, 'kafka', { name: 'kafka', tier: 'starter', region: 'us-east-1' }),
    );
    await expectCurrent(STREAMING_CLUSTER, 'kafka');
    await platform.store.create(
      STREAMING_TOPIC,
      object(STREAMING_TOPIC, 'orders', {
        cluster: 'kafka',
        name: 'orders',
        partitions: 1,
        replicas: 1,
        retention: '7d',
        cleanupPolicy: 'delete',
      }),
    );
    await platform.store.create(
      STREAMING_USER,
      object(STREAMING_USER, 'reader', { cluster: 'kafka', name: 'reader', acls: [] }),
    );
    await expectCurrent(STREAMING_TOPIC, 'orders');
    await expectCurrent(STREAMING_USER, 'reader');
  });

  it('an integration whose credentials the provider accepted becomes Ready', async () => {
    const name = 'a7e0c1d2-0000-4000-8000-00000000000b';
    // As the API leaves it after the provider accepted the credentials at creation.
    await storeCredentials(platform.database, platform.platformKey, {
      integrationId: name,
      namespace: NAMESPACE,
      type: 'chat',
      accountKey: null,
      credentials: { webhook_url: 'http://127.0.0.1:9/hook' },
      now: platform.clock.now(),
      verified: true,
    });
    await platform.store.create(INTEGRATION, object(INTEGRATION, name, { type: 'chat', name: 'team chat' }));
    expect(condition(await expectCurrent(INTEGRATION, name), 'Ready')?.reason).toBe('Connected');
  });

  it('a stack applied by a stack execution becomes Ready, and the execution Ready once completed', async () => {
    await platform.store.create(
      STACK,
      object(STACK, 'site', {
        name: 'site',
        tenant: 'acme',
        version: 1,
        template: { version: '1.0.0', name: 'site', outputs: { greeting: { value: 'hello' } } },
      }),
    );
    await platform.store.create(
      STACK_EXECUTION,
      object(STACK_EXECUTION, 'site-apply', { stack: 'site', operation: 'apply', basedOnVersion: 1 }),
    );
    const execution = await expectCurrent(STACK_EXECUTION, 'site-apply');
    expect(condition(execution, 'Ready')?.reason).toBe('Completed');
    expect(condition(execution, 'Reconciling')?.status).toBe('False');
    expect(condition(await expectCurrent(STACK, 'site'), 'Ready')?.reason).toBe('Applied');
  });

  it.each([
    {
      what: 'a VPC overlapping another',
      kind: VPC,
      name: 'a7e0c1d2-0000-4000-8000-000000000009',
      spec: { name: 'copy', cidrBlock: '10.70.0.0/16', region: 'us-east-1' },
      reason: 'CidrConflict',
      message: 'overlaps VPC "main"',
    },
    {
      what: 'a vault cluster whose threshold exceeds its shares',
      kind: VAULT_CLUSTER,
      name: 'broken-vault',
      spec: { name: 'broken', shares: 1, threshold: 3 },
      reason: 'InvalidSpec',
      message: 'spec.threshold (3) must not exceed spec.shares (1)',
    },
    {
      what: 'a database of a version not offered',
      kind: DATABASE,
      name: 'old-postgres',
      // A version the CRD takes (another engine's) that PostgreSQL is not offered in.
      spec: { name: 'old', engine: 'postgresql', version: '7' },
      reason: 'InvalidSpec',
      message: 'spec.version',
    },
    {
      what: 'a share larger than the organization may have',
      kind: NFS_SHARE,
      name: 'huge-share',
      spec: { name: 'huge', sizeGb: 1_000_000 },
      reason: 'QuotaExceeded',
      message: '',
    },
    {
      what: 'a topic of a cluster that does not exist',
      kind: STREAMING_TOPIC,
      name: 'orphan-topic',
      spec: {
        cluster: 'nowhere',
        name: 'orders',
        partitions: 1,
        replicas: 1,
        retention: '7d',
        cleanupPolicy: 'delete',
      },
      reason: 'ClusterNotFound',
      message: 'cluster nowhere does not exist',
    },
    {
      what: 'a user of a cluster that does not exist',
      kind: STREAMING_USER,
      name: 'orphan-user',
      spec: { cluster: 'nowhere', name: 'reader', acls: [] },
      reason: 'ClusterNotFound',
      message: 'cluster nowhere does not exist',
    },
    {
      what: 'a subnet overlapping a sibling',
      kind: SUBNET,
      name: 'a7e0c1d2-0000-4000-8000-000000000010',
      spec: { vpcRef: VPC_NAME, name: 'copy', cidrBlock: '10.70.1.0/24', availabilityZone: 'us-east-1a' },
      reason: 'CidrConflict',
      message: '10.70.1.0/24',
    },
    {
      what: 'a route table routing to a gateway id that is not one',
      kind: ROUTE_TABLE,
      name: 'a7e0c1d2-0000-4000-8000-000000000011',
      spec: { vpcRef: VPC_NAME, routes: [{ destination: '0.0.0.0/0', target: 'somewhere' }] },
      reason: 'InvalidSpec',
      message: 'spec.routes[0].target',
    },
    {
      what: 'a network ACL with a rule number past the catch-all',
      kind: NETWORK_ACL,
      name: 'a7e0c1d2-0000-4000-8000-000000000012',
      spec: {
        vpcRef: VPC_NAME,
        inboundRules: [{ ruleNumber: 40000, protocol: 'tcp', cidrBlock: '0.0.0.0/0', action: 'allow' }],
      },
      reason: 'InvalidSpec',
      message: 'spec.inboundRules[0].ruleNumber',
    },
    {
      what: 'a security group whose inbound rule has no port range',
      kind: SECURITY_GROUP,
      name: 'a7e0c1d2-0000-4000-8000-000000000013',
      spec: { vpcRef: VPC_NAME, name: 'open', inboundRules: [{ protocol: 'tcp', source: '0.0.0.0/0' }] },
      reason: 'InvalidSpec',
      message: 'inboundRules[0]',
    },
    {
      what: 'a second internet gateway of one VPC',
      kind: INTERNET_GATEWAY,
      name: 'a7e0c1d2-0000-4000-8000-000000000015',
      spec: { vpcRef: VPC_NAME },
      reason: 'GatewayAlreadyAttached',
      message: 'already has internet gateway a7e0c1d2-0000-4000-8000-000000000003',
    },
    {
      what: 'a NAT gateway in a subnet that does not exist',
      kind: NAT_GATEWAY,
      name: 'a7e0c1d2-0000-4000-8000-000000000014',
      spec: { vpcRef: VPC_NAME, subnetId: 'a7e0c1d2-0000-4000-8000-0000000000ff' },
      reason: 'SubnetNotFound',
      message: 'does not exist in VPC',
    },
    {
      what: 'a streaming cluster in a region the platform does not have',
      kind: STREAMING_CLUSTER,
      name: 'moon-kafka',
      spec: { name: 'moon', tier: 'starter', region: 'moon-1' },
      reason: 'InvalidSpec',
      message: 'spec.region',
    },
    {
      what: 'a backup of a database that does not exist',
      kind: BACKUP,
      name: 'orphan-backup',
      spec: { source: { kind: 'Database', name: 'nowhere' }, retentionDays: 1 },
      reason: 'Failed',
      message: 'the database nowhere does not exist',
    },
    {
      what: 'a restore of a backup that does not exist',
      kind: RESTORE,
      name: 'orphan-restore',
      spec: { backup: 'nowhere', target: 'pg' },
      reason: 'Failed',
      message: 'the backup nowhere does not exist',
    },
    {
      what: 'a stack execution of a stack that does not exist',
      kind: STACK_EXECUTION,
      name: 'orphan-apply',
      spec: { stack: 'nowhere', operation: 'apply', basedOnVersion: 1 },
      reason: 'StepFailed',
      message: 'stack nowhere does not exist',
    },
    {
      what: 'an integration without credentials',
      kind: INTEGRATION,
      name: 'a7e0c1d2-0000-4000-8000-00000000000a',
      spec: { type: 'chat', name: 'team chat' },
      reason: 'CredentialsMissing',
      message: 'no credentials are stored',
    },
  ])(
    '$what is Stalled ($reason) with a Warning event saying why',
    async ({ kind, name, spec, reason, message }) => {
      await platform.store.create(kind, object(kind, name, spec));
      const stalled = await eventually(async () => {
        const found = await read(kind, name);
        expect(condition(found, 'Stalled')).toMatchObject({ status: 'True', reason });
        expect(condition(found, 'Ready')).toMatchObject({ status: 'False', reason });
        expect((found.status as Status).observedGeneration).toBe(found.metadata.generation);
        return found;
      });
      expect(condition(stalled, 'Stalled')?.message).toContain(message);
      const warning = await eventually(async () => {
        const found = (await eventsAbout(stalled)).find((event) => event.type === 'Warning');
        expect(found).toBeDefined();
        return found!;
      });
      expect(warning).toMatchObject({ reason, involvedObject: { kind: kind.kind, name } });
      expect(warning.message).toContain(message);
      seenStalled.add(kind.kind);
    },
  );

  it('a stack whose template is invalid is Stalled by its own controller, with a Warning event', async () => {
    await platform.store.create(
      STACK,
      object(STACK, 'broken', {
        name: 'broken',
        tenant: 'acme',
        version: 1,
        template: {
          version: '1.0.0',
          name: 'broken',
          outputs: { url: { value: '${resources.missing.endpoint}' } },
        },
      }),
    );
    const stack = await eventually(async () => {
      const found = await read(STACK, 'broken');
      expect(condition(found, 'Stalled')).toMatchObject({ status: 'True', reason: 'InvalidTemplate' });
      return found;
    });
    const warning = await eventually(async () => {
      const found = (await eventsAbout(stack)).find((event) => event.type === 'Warning');
      expect(found).toBeDefined();
      return found!;
    });
    expect(warning.reason).toBe('Failed');
    expect(warning.message).toContain('template.outputs.url.value');
    seenStalled.add(STACK.kind);
  });

  it('walked every kind both ways', () => {
    const kinds = KINDS.map((kind) => kind.kind).sort();
    expect([...seenReady].sort()).toEqual(kinds);
    expect([...seenStalled].sort()).toEqual(kinds);
  });
});
