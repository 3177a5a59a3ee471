import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VpcConfig } from '../../config/vpc.js';
import { API_VERSION } from '../../control-plane/kind-descriptor.js';
import { loadKinds } from '../../crds/registry.js';
import {
  INTERNET_GATEWAY,
  NAT_GATEWAY,
  NETWORK_ACL,
  ROUTE_TABLE,
  SECURITY_GROUP,
  SUBNET,
  VPC,
  VPC_KINDS,
  type NatGateway,
  type RouteTable,
  type SecurityGroup,
  type Subnet,
  type Vpc,
  type VpcPart,
  type VpcSpec,
} from '../../crds/vpc.js';
import { ControllerRunner } from '../../controllers/runtime/controller-runner.js';
import type { KubeObject, Watch, WatchEvent } from '../../control-plane/types.js';
import { openEmbeddedStore, type EmbeddedStore } from '../../control-plane/embedded-store/index.js';
import { vpcControllers } from '../../controllers/vpc/index.js';
import { DELETION_ORDER } from '../../controllers/vpc/parts.js';
import { findTombstone } from '../../controllers/vpc/tombstones.js';
import { mainRouteTable, mainRouteTableId } from '../../controllers/vpc/vpc-defaults.js';
import { createLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';
import { openTestSqliteDatabase, type TestSqliteDatabase } from '../fixtures/db-sqlite.js';
import { eventually } from '../fixtures/eventually.js';
import { FakeClock } from '../fixtures/fake-clock.js';

const NAMESPACE = 'default';
const RESYNC_MS = 10 * 60_000;

/** Two usable addresses: .1 and .2 (the network and broadcast addresses are never handed out). */
const CONFIG: VpcConfig = {
  regions: ['us-east-1', 'eu-west-1'],
  limitPerOrganization: 5,
  natPublicIpPool: '198.51.100.0/30',
};

function vpc(name: string, spec: Partial<VpcSpec> = {}): Vpc {
  return {
    apiVersion: API_VERSION,
    kind: 'Vpc',
    metadata: { name, namespace: NAMESPACE },
    spec: { name, cidrBlock: '10.0.0.0/16', region: 'us-east-1', ...spec },
  };
}

function part<T extends VpcPart>(kind: string, name: string, spec: T['spec']): T {
  return { apiVersion: API_VERSION, kind, metadata: { name, namespace: NAMESPACE }, spec } as T;
}

const subnet = (name: string, vpcRef: string, cidrBlock: string) =>
  part<Subnet>('Subnet', name, { vpcRef, cidrBlock, availabilityZone: 'us-east-1a' });

const natGateway = (name: string, vpcRef: string, subnetId: string) =>
  part<NatGateway>('NatGateway', name, { vpcRef, subnetId });

describe('the VPC controllers on the embedded store', () => {
  let dir: string;
  let store: EmbeddedStore;
  let data: TestSqliteDatabase;
  let clock: FakeClock;
  let runner: ControllerRunner;
  const watches: Watch[] = [];

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-vpc-controllers-'));
    store = openEmbeddedStore({ path: path.join(dir, 'store.db'), kinds: loadKinds(VPC_KINDS) });
    data = await openTestSqliteDatabase();
    clock = new FakeClock('2026-03-01T09:00:00Z');
    runner = new ControllerRunner({
      store,
      logger: createLogger('silent'),
      metrics: createMetrics({ processMetrics: false }),
      clock,
    });
    for (const controller of vpcControllers(CONFIG, data.database)) runner.register(controller);
  });

  afterEach(async () => {
    for (const watch of watches.splice(0)) watch.stop();
    await runner.stop();
    await store.close();
    await data.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const readVpc = (name: string) => store.get<Vpc>(VPC, NAMESPACE, name);
  const names = async (type: typeof VPC) =>
    (await store.list(type, { namespace: NAMESPACE })).items.map((item) => item.metadata.name);

  /** Every event of the kinds from now on, in the order the store committed them. */
  function record(types: readonly (typeof VPC)[]): { kind: string; event: WatchEvent }[] {
    const events: { kind: string; revision: bigint; event: WatchEvent }[] = [];
    for (const type of types) {
      const watch = store.watch(type, { namespace: NAMESPACE });
      watches.push(watch);
      void (async () => {
        for await (const event of watch) {
          if (event.type === 'BOOKMARK') continue;
          events.push({ kind: type.kind, revision: BigInt(event.object.metadata.resourceVersion!), event });
          events.sort((a, b) => (a.revision < b.revision ? -1 : a.revision > b.revision ? 1 : 0));
        }
      })();
    }
    return events;
  }

  async function availableVpc(name: string, spec: Partial<VpcSpec> = {}): Promise<Vpc> {
    await store.create(VPC, vpc(name, spec));
    return eventually(async () => {
      const current = await readVpc(name);
      expect(current.status?.phase).toBe('available');
      return current;
    });
  }

  it('takes a VPC from provisioning to available, Ready True for its generation', async () => {
    const events = record([VPC]);
    await runner.start();
    await store.create(VPC, vpc('prod'));
    const ready = await eventually(async () => {
      const current = await readVpc('prod');
      expect(current.status?.phase).toBe('available');
      return current;
    });
    expect(ready.status?.conditions?.[0]).toMatchObject({
      type: 'Ready',
      status: 'True',
      reason: 'Available',
      observedGeneration: 1,
    });
    expect(ready.status).toMatchObject({
      observedGeneration: 1,
      routeTableCount: 1,
      networkAclCount: 1,
      securityGroupCount: 1,
      subnetCount: 0,
      mainRouteTableId: mainRouteTableId(ready),
    });
    await eventually(() => {
      const phases = events.flatMap(({ event }) => (event.object as Vpc).status?.phase ?? []);
      expect(phases.filter((phase, index) => phase !== phases[index - 1])).toEqual([
        'provisioning',
        'available',
      ]);
    });
    expect(ready.metadata.finalizers).toContain('cloudplane.dev/vpc-cleanup');

    await store.patch(VPC, NAMESPACE, 'prod', { spec: { enableFlowLogs: true } });
    await eventually(async () => {
      const current = await readVpc('prod');
      expect(current.metadata.generation).toBe(2);
      expect(current.status?.observedGeneration).toBe(2);
      expect(current.status?.conditions?.[0]).toMatchObject({ status: 'True', observedGeneration: 2 });
    });
  });

  it('creates the default parts once: a retry after partial progress and a resync add none', async () => {
    const created = await store.create<Vpc>(VPC, vpc('retried'));
    // What an earlier attempt that stopped after the route table would have left behind.
    await store.create(ROUTE_TABLE, mainRouteTable(created));
    await runner.start();
    await eventually(async () => expect((await readVpc('retried')).status?.phase).toBe('available'));
    await store.patch(VPC, NAMESPACE, 'retried', { spec: { enableDnsHostnames: true } });
    await eventually(async () => expect((await readVpc('retried')).status?.observedGeneration).toBe(2));
    await clock.advance(RESYNC_MS);
    await clock.advance(RESYNC_MS);
    const parts = {
      routeTables: await names(ROUTE_TABLE),
      networkAcls: await names(NETWORK_ACL),
      securityGroups: await names(SECURITY_GROUP),
    };
    expect(parts.routeTables).toEqual([mainRouteTableId(created)]);
    expect(parts.networkAcls).toHaveLength(1);
    expect(parts.securityGroups).toHaveLength(1);
    expect(parts.networkAcls[0]).toMatch(/^acl-[0-9a-f]{17}$/);
    expect(parts.securityGroups[0]).toMatch(/^sg-[0-9a-f]{17}$/);
  });

  it('deletes the parts in dependency order, then the VPC, leaving a tombstone', async () => {
    await runner.start();
    const network = await availableVpc('doomed');
    await store.create(SUBNET, subnet('11111111-1111-4111-8111-111111111111', 'doomed', '10.0.1.0/24'));
    await store.create(SUBNET, subnet('22222222-2222-4222-8222-222222222222', 'doomed', '10.0.2.0/24'));
    await store.create(
      INTERNET_GATEWAY,
      part('InternetGateway', 'igw-0000000000000000a', { vpcRef: 'doomed' }),
    );
    await store.create(
      NAT_GATEWAY,
      natGateway('nat-0000000000000000a', 'doomed', '11111111-1111-4111-8111-111111111111'),
    );
    await store.create(
      SECURITY_GROUP,
      part<SecurityGroup>('SecurityGroup', 'sg-0000000000000000a', {
        vpcRef: 'doomed',
        name: 'web',
        inboundRules: [],
      }),
    );
    await store.create(
      ROUTE_TABLE,
      part<RouteTable>('RouteTable', 'rtb-0000000000000000a', {
        vpcRef: 'doomed',
        name: 'private',
        routes: [],
      }),
    );
    await eventually(async () => {
      expect((await readVpc('doomed')).status).toMatchObject({
        subnetCount: 2,
        natGatewayCount: 1,
        internetGatewayCount: 1,
        securityGroupCount: 2,
        routeTableCount: 2,
        networkAclCount: 1,
      });
      const [gateway] = (await store.list<NatGateway>(NAT_GATEWAY, { namespace: NAMESPACE })).items;
      expect(gateway?.status?.phase).toBe('available');
    });

    const events = record([VPC, ...DELETION_ORDER]);
    await store.delete(VPC, NAMESPACE, 'doomed');
    await eventually(async () => expect(await names(VPC)).toEqual([]));
    await eventually(() =>
      expect(events.some(({ event }) => event.type === 'DELETED' && event.object.kind === 'Vpc')).toBe(true),
    );

    const deleted = events.filter(({ event }) => event.type === 'DELETED').map(({ kind }) => kind);
    expect(deleted.filter((kind, index) => kind !== deleted[index - 1])).toEqual([
      'NatGateway',
      'InternetGateway',
      'Subnet',
      'RouteTable',
      'SecurityGroup',
      'NetworkAcl',
      'Vpc',
    ]);
    expect(deleted).toHaveLength(10);
    expect(await findTombstone(data.database, NAMESPACE, 'doomed')).toMatchObject({
      name: 'doomed',
      cidr_block: '10.0.0.0/16',
      created_at: network.metadata.creationTimestamp,
    });
    expect(await data.database.kysely.selectFrom('vpc_cidr_claims').selectAll().execute()).toEqual([]);
    expect(await data.database.kysely.selectFrom('vpc_public_ips').selectAll().execute()).toEqual([]);
  });

  it('takes NAT gateways from pending to available with distinct pool addresses, never one twice', async () => {
    await runner.start();
    await availableVpc('edge');
    const subnetId = '33333333-3333-4333-8333-333333333333';
    await store.create(SUBNET, subnet(subnetId, 'edge', '10.0.0.0/28'));
    const gateways = ['nat-0000000000000000a', 'nat-0000000000000000b', 'nat-0000000000000000c'];
    const created = await store.create<NatGateway>(NAT_GATEWAY, natGateway(gateways[0]!, 'edge', subnetId));
    expect(created.status?.phase ?? 'pending').toBe('pending');
    await store.create(NAT_GATEWAY, natGateway(gateways[1]!, 'edge', subnetId));
    const readGateway = (name: string) => store.get<NatGateway>(NAT_GATEWAY, NAMESPACE, name);

    const [first, second] = await eventually(async () => {
      const both = await Promise.all(gateways.slice(0, 2).map(readGateway));
      for (const gateway of both) expect(gateway.status?.phase).toBe('available');
      return both;
    });
    expect([first!.status?.publicIp, second!.status?.publicIp].sort()).toEqual([
      '198.51.100.1',
      '198.51.100.2',
    ]);
    expect(first!.status?.allocationId).toMatch(/^eipalloc-[0-9a-f]{17}$/);
    expect(first!.status?.allocationId).not.toBe(second!.status?.allocationId);
    await eventually(async () =>
      expect((await store.get<Subnet>(SUBNET, NAMESPACE, subnetId)).status).toMatchObject({
        assignedIpCount: 2,
        availableIpCount: 9,
      }),
    );

    await store.create(NAT_GATEWAY, natGateway(gateways[2]!, 'edge', subnetId));
    await eventually(async () =>
      expect((await readGateway(gateways[2]!)).status?.conditions?.[0]).toMatchObject({
        status: 'False',
        reason: 'PoolExhausted',
        message: 'the NAT public address pool 198.51.100.0/30 has no free address',
      }),
    );
    expect((await readGateway(gateways[2]!)).status?.publicIp).toBeUndefined();

    const freed = first!.status!.publicIp!;
    await store.delete(NAT_GATEWAY, NAMESPACE, first!.metadata.name);
    await eventually(async () => expect(await names(NAT_GATEWAY)).not.toContain(first!.metadata.name));
    await clock.advance(RESYNC_MS);
    const third = await eventually(async () => {
      const current = await readGateway(gateways[2]!);
      expect(current.status?.phase).toBe('available');
      return current;
    });
    expect(third.status?.publicIp).toBe(freed);
    const held = await data.database.kysely.selectFrom('vpc_public_ips').select('address').execute();
    expect(held.map((row) => row.address).sort()).toEqual(['198.51.100.1', '198.51.100.2']);
  });

  it.each([
    {
      problem: 'a block with host bits set',
      spec: { cidrBlock: '10.0.0.1/16' },
      message: 'spec.cidrBlock: 10.0.0.1/16 has host bits set; the block is 10.0.0.0/16',
    },
    {
      problem: 'a block larger than /16',
      spec: { cidrBlock: '10.0.0.0/8' },
      message: 'spec.cidrBlock: 10.0.0.0/8 is a /8; blocks must be from /16 to /28',
    },
    {
      problem: 'text that is no block',
      spec: { cidrBlock: '10.0.0.0' },
      message: 'spec.cidrBlock: "10.0.0.0" is not an IPv4 CIDR block such as 10.0.0.0/16',
    },
    {
      problem: 'an unknown region',
      spec: { region: 'mars-north-1' },
      message: 'spec.region: "mars-north-1" is not a region; choose one of us-east-1, eu-west-1',
    },
  ])(
    'reports a VPC applied with $problem as Ready False InvalidSpec, creating nothing',
    async ({ spec, message }) => {
      await runner.start();
      await store.create(VPC, vpc('invalid', spec));
      const failed = await eventually(async () => {
        const current = await readVpc('invalid');
        expect(current.status?.conditions?.[0]).toMatchObject({
          type: 'Ready',
          status: 'False',
          reason: 'InvalidSpec',
          message,
          observedGeneration: 1,
        });
        return current;
      });
      expect(failed.status?.phase).toBeUndefined();
      expect(await names(ROUTE_TABLE)).toEqual([]);
      expect(await data.database.kysely.selectFrom('vpc_cidr_claims').selectAll().execute()).toEqual([]);
    },
  );

  it('reports a subnet outside its VPC and one overlapping a sibling, naming the rule and the sibling', async () => {
    await runner.start();
    await availableVpc('home');
    const sibling = '44444444-4444-4444-8444-444444444444';
    await store.create(SUBNET, subnet(sibling, 'home', '10.0.0.0/24'));
    await eventually(async () =>
      expect((await store.get<Subnet>(SUBNET, NAMESPACE, sibling)).status?.phase).toBe('available'),
    );
    await store.create(SUBNET, subnet('55555555-5555-4555-8555-555555555555', 'home', '10.1.0.0/24'));
    await store.create(SUBNET, subnet('66666666-6666-4666-8666-666666666666', 'home', '10.0.0.128/25'));
    const conditionOf = async (name: string) =>
      (await store.get<Subnet>(SUBNET, NAMESPACE, name)).status?.conditions?.[0];
    await eventually(async () => {
      expect(await conditionOf('55555555-5555-4555-8555-555555555555')).toMatchObject({
        status: 'False',
        reason: 'InvalidSpec',
        message: "spec.cidrBlock: 10.1.0.0/24 is not inside the VPC's block 10.0.0.0/16",
      });
      expect(await conditionOf('66666666-6666-4666-8666-666666666666')).toMatchObject({
        status: 'False',
        reason: 'CidrConflict',
        message: `spec.cidrBlock: 10.0.0.128/25 overlaps subnet "${sibling}" (${sibling}) with block 10.0.0.0/24`,
      });
    });
  });

  it('reports a part whose VPC does not exist and adopts it once the VPC appears', async () => {
    await runner.start();
    await store.create(
      INTERNET_GATEWAY,
      part('InternetGateway', 'igw-0000000000000000b', { vpcRef: 'later' }),
    );
    const readGateway = () => store.get<KubeObject>(INTERNET_GATEWAY, NAMESPACE, 'igw-0000000000000000b');
    await eventually(async () =>
      expect(((await readGateway()) as VpcPart).status?.conditions?.[0]).toMatchObject({
        status: 'False',
        reason: 'VpcNotFound',
        message: 'spec.vpcRef: VPC "later" does not exist',
      }),
    );
    const owner = await availableVpc('later');
    await clock.advance(30_000);
    const adopted = await eventually(async () => {
      const current = (await readGateway()) as VpcPart;
      expect(current.status?.phase).toBe('available');
      return current;
    });
    expect(adopted.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Vpc', name: 'later', uid: owner.metadata.uid, controller: true }),
    ]);
  });
});
