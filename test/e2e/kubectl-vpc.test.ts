import fs from 'node:fs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VpcConfig } from '../../config/vpc.js';
import { ControllerRunner } from '../../controllers/runtime/controller-runner.js';
import { vpcControllers } from '../../controllers/vpc/index.js';
import { loadKinds } from '../../crds/registry.js';
import { VPC_KINDS, type Vpc } from '../../crds/vpc.js';
import { createLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';
import { openTestSqliteDatabase, type TestSqliteDatabase } from '../fixtures/db-sqlite.js';
import { Kubectl, KUBECTL } from '../fixtures/kube-kubectl.js';
import { startKubeServer, type KubeServer } from '../fixtures/kube-server.js';

const available = fs.existsSync(KUBECTL);
if (!available) console.warn(`SKIPPING the kubectl VPC suite: ${KUBECTL} is missing; run npm run tools`);

const CONFIG: VpcConfig = {
  regions: ['us-east-1', 'eu-west-1'],
  limitPerOrganization: 5,
  natPublicIpPool: '203.0.113.0/24',
};

const VPC_ID = '0f6c1a9e-4a4e-4c1e-9d1f-2b7a5c3e8d01';
const SUBNET_ID = '7d2e4b1a-9c3f-4e8d-a1b2-c3d4e5f60718';

function vpcManifest(name: string, cidrBlock: string): string {
  return [
    'apiVersion: cloudplane.dev/v1alpha1',
    'kind: Vpc',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  name: production',
    `  cidrBlock: ${cidrBlock}`,
    '  region: us-east-1',
    '',
  ].join('\n');
}

const SUBNET_MANIFEST = [
  'apiVersion: cloudplane.dev/v1alpha1',
  'kind: Subnet',
  'metadata:',
  `  name: ${SUBNET_ID}`,
  'spec:',
  `  vpcRef: ${VPC_ID}`,
  '  name: web',
  '  cidrBlock: 10.40.1.0/24',
  '  availabilityZone: us-east-1b',
  '',
].join('\n');

/** The header cells and the first row's cells of a `kubectl get` table. */
function table(output: string): string[][] {
  return output
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/\s{2,}/));
}

describe.skipIf(!available)('kubectl with VPCs and subnets', () => {
  let server: KubeServer;
  let data: TestSqliteDatabase;
  let runner: ControllerRunner;
  let kubectl: Kubectl;

  beforeAll(async () => {
    server = await startKubeServer({ kinds: loadKinds(VPC_KINDS) });
    data = await openTestSqliteDatabase();
    runner = new ControllerRunner({
      store: server.store,
      logger: createLogger('silent'),
      metrics: createMetrics(),
    });
    for (const controller of vpcControllers(CONFIG, data.database)) runner.register(controller);
    await runner.start();
    kubectl = new Kubectl(server);
  });
  afterAll(async () => {
    await runner?.stop();
    await server?.close();
    await data?.dispose();
    kubectl?.cleanup();
  });

  it('applies a Vpc and a Subnet, waits for Ready, shows columns, status and default parts, and deletes them all', async () => {
    const vpcFile = kubectl.manifest('vpc.yaml', vpcManifest(VPC_ID, '10.40.0.0/16'));
    expect(await kubectl.ok('apply', '-f', vpcFile)).toBe(`vpc.cloudplane.dev/${VPC_ID} created\n`);
    expect(await kubectl.ok('wait', '--for=condition=Ready', `vpc/${VPC_ID}`, '--timeout=30s')).toBe(
      `vpc.cloudplane.dev/${VPC_ID} condition met\n`,
    );
    const subnetFile = kubectl.manifest('subnet.yaml', SUBNET_MANIFEST);
    expect(await kubectl.ok('apply', '-f', subnetFile)).toBe(`subnet.cloudplane.dev/${SUBNET_ID} created\n`);
    expect(await kubectl.ok('wait', '--for=condition=Ready', `subnet/${SUBNET_ID}`, '--timeout=30s')).toBe(
      `subnet.cloudplane.dev/${SUBNET_ID} condition met\n`,
    );
    expect(
      await kubectl.ok('wait', '--for=jsonpath={.status.subnetCount}=1', `vpc/${VPC_ID}`, '--timeout=30s'),
    ).toContain('condition met');

    const [vpcHeader, vpcRow] = table(await kubectl.ok('get', 'vpcs'));
    expect(vpcHeader).toEqual(['NAME', 'CIDR', 'REGION', 'STATUS', 'REASON', 'SUBNETS', 'AGE']);
    expect(vpcRow?.slice(0, 6)).toEqual([VPC_ID, '10.40.0.0/16', 'us-east-1', 'available', 'Available', '1']);
    expect(vpcRow?.[6]).toMatch(/^\d+s$/);
    const [, wideRow] = table(await kubectl.ok('get', 'vpc', VPC_ID, '-o', 'wide'));
    expect(wideRow).toContain('production');
    expect(wideRow).toContain('the VPC and its default parts exist');

    const [subnetHeader, subnetRow] = table(await kubectl.ok('get', 'subnets'));
    expect(subnetHeader).toEqual(['NAME', 'VPC', 'CIDR', 'ZONE', 'AVAILABLE IPS', 'STATUS', 'REASON', 'AGE']);
    expect(subnetRow?.slice(0, 6)).toEqual([
      SUBNET_ID,
      VPC_ID,
      '10.40.1.0/24',
      'us-east-1b',
      '251',
      'available',
    ]);

    const shown = parse(await kubectl.ok('get', 'vpc', VPC_ID, '-o', 'yaml')) as Vpc;
    expect(shown.metadata.finalizers).toEqual(['cloudplane.dev/vpc-cleanup']);
    expect(shown.status).toMatchObject({
      phase: 'available',
      observedGeneration: 1,
      subnetCount: 1,
      routeTableCount: 1,
      networkAclCount: 1,
      securityGroupCount: 1,
      mainRouteTableId: expect.stringMatching(/^rtb-[0-9a-f]{17}$/),
      defaultNetworkAclId: expect.stringMatching(/^acl-[0-9a-f]{17}$/),
      defaultSecurityGroupId: expect.stringMatching(/^sg-[0-9a-f]{17}$/),
    });
    expect(shown.status?.conditions?.[0]).toMatchObject({
      type: 'Ready',
      status: 'True',
      reason: 'Available',
    });

    const parts = (await kubectl.ok('get', 'routetables,networkacls,securitygroups', '-o', 'name'))
      .trim()
      .split('\n');
    expect(parts).toEqual([
      `routetable.cloudplane.dev/${shown.status!.mainRouteTableId!}`,
      `networkacl.cloudplane.dev/${shown.status!.defaultNetworkAclId!}`,
      `securitygroup.cloudplane.dev/${shown.status!.defaultSecurityGroupId!}`,
    ]);
    const [rtbHeader, rtbRow] = table(await kubectl.ok('get', 'rtb'));
    expect(rtbHeader).toEqual(['NAME', 'VPC', 'MAIN', 'SUBNETS', 'STATUS', 'REASON', 'AGE']);
    expect(rtbRow?.slice(1, 5)).toEqual([VPC_ID, 'true', '1', 'available']);
    const owners = parse(
      await kubectl.ok('get', 'sg', shown.status!.defaultSecurityGroupId!, '-o', 'yaml'),
    ) as Vpc;
    expect(owners.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Vpc', name: VPC_ID, controller: true }),
    ]);

    expect(await kubectl.ok('delete', 'vpc', VPC_ID, '--timeout=30s')).toBe(
      `vpc.cloudplane.dev "${VPC_ID}" deleted\n`,
    );
    const left = await kubectl.run(
      'get',
      'vpcs,subnets,routetables,networkacls,securitygroups',
      '-o',
      'name',
    );
    expect(left).toMatchObject({ code: 0, stdout: '' });
  });

  it.each([
    {
      problem: 'a block with host bits set',
      cidr: '10.50.0.1/16',
      message: 'spec.cidrBlock: 10.50.0.1/16 has host bits set; the block is 10.50.0.0/16',
    },
    {
      problem: 'a block smaller than /28',
      cidr: '10.50.0.0/30',
      message: 'spec.cidrBlock: 10.50.0.0/30 is a /30; blocks must be from /16 to /28',
    },
  ])(
    'reports a Vpc applied with $problem as Ready False with the validation message',
    async ({ cidr, message }) => {
      const name = 'invalid-network';
      await kubectl.ok('apply', '-f', kubectl.manifest(`${name}.yaml`, vpcManifest(name, cidr)));
      expect(await kubectl.ok('wait', '--for=condition=Ready=False', `vpc/${name}`, '--timeout=30s')).toBe(
        `vpc.cloudplane.dev/${name} condition met\n`,
      );
      const condition = JSON.parse(
        await kubectl.ok('get', 'vpc', name, '-o', 'jsonpath={.status.conditions[0]}'),
      ) as Record<string, unknown>;
      expect(condition).toMatchObject({ type: 'Ready', status: 'False', reason: 'InvalidSpec', message });
      const tableOwners = await kubectl.ok('get', 'routetables', '-o', 'jsonpath={.items[*].spec.vpcRef}');
      expect(tableOwners).not.toContain(name);
      expect(await kubectl.ok('delete', 'vpc', name, '--timeout=30s')).toBe(
        `vpc.cloudplane.dev "${name}" deleted\n`,
      );
    },
  );
});
