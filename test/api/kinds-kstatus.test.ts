import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KIND } from '../../control-plane/built-in-kinds.js';
import type { CoreEvent } from '../../control-plane/event-objects.js';
import type { KindDescriptor } from '../../control-plane/kind-descriptor.js';
import type { Condition, KubeObject } from '../../control-plane/types.js';
import { DATABASE, NFS_SHARE } from '../../crds/data-services.js';
import { INTEGRATION } from '../../crds/integration.js';
import { STACK } from '../../crds/stacks.js';
import { STREAMING_TOPIC, STREAMING_USER } from '../../crds/streaming.js';
import { VAULT_CLUSTER } from '../../crds/vault-cluster.js';
import { INTERNET_GATEWAY, NETWORK_ACL, ROUTE_TABLE, SECURITY_GROUP, SUBNET, VPC } from '../../crds/vpc.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

/**
 * kstatus as Flux and Argo CD read it, for the kinds' controllers: an object converges to
 * `Ready` True for its generation, and one that cannot progress says `Stalled` True with the
 * reason, next to a Warning Event with the same reason.
 */

const NAMESPACE = 'org-kstatus';

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
    await expectCurrent(INTERNET_GATEWAY, 'a7e0c1d2-0000-4000-8000-000000000003');
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
  });
});
