import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { garbageCollection } from '../../jobs/garbage-collection.js';
import {
  NAT_GATEWAY,
  SECURITY_GROUP,
  SUBNET,
  INTERNET_GATEWAY,
  ROUTE_TABLE,
  NETWORK_ACL,
} from '../../crds/vpc.js';
import { createLogger } from '../../observability/logger.js';
import { registerAndSignIn, signIn, type TestAccount } from '../fixtures/accounts-app.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

let app: TestPlatform;
let owner: TestAccount;

beforeAll(async () => {
  app = await startPlatform({ env: { CLOUDPLANE_VPC_LIMIT: '3' } });
  owner = await registerAndSignIn(app);
});
afterAll(async () => app?.close());

type Json = Record<string, unknown>;

async function call(method: string, path: string, body?: unknown, token = owner.token) {
  const response = await app.call(method, path, { token, body });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : undefined) as Json,
  };
}

async function createVpc(cidr: string, name = 'main', region = 'us-east-1', token = owner.token) {
  return call('POST', '/api/v1/vpcs', { name, cidr_block: cidr, region }, token);
}

async function availableVpc(cidr: string, name = 'main', token = owner.token): Promise<string> {
  const created = await createVpc(cidr, name, 'us-east-1', token);
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  await eventually(async () =>
    expect((await call('GET', `/api/v1/vpcs/${id}`, undefined, token)).body.status).toBe('available'),
  );
  return id;
}

async function deleteAll(token = owner.token) {
  const list = await call('GET', '/api/v1/vpcs?limit=100', undefined, token);
  for (const vpc of list.body as unknown as Json[])
    await call('DELETE', `/api/v1/vpcs/${vpc.id as string}`, undefined, token);
  await eventually(async () =>
    expect((await call('GET', '/api/v1/vpcs', undefined, token)).body).toEqual([]),
  );
}

describe('VPCs', () => {
  it('creates a VPC provisioning, then available with its main route table, default ACL and default group', async () => {
    const created = await createVpc('10.0.0.0/16', 'prod');
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'prod',
      cidr_block: '10.0.0.0/16',
      region: 'us-east-1',
      status: 'provisioning',
      is_default: false,
      created_at: expect.any(String),
    });
    const id = created.body.id as string;
    const detail = await eventually(async () => {
      const read = await call('GET', `/api/v1/vpcs/${id}`);
      expect(read.body).toMatchObject({
        status: 'available',
        route_table_count: 1,
        security_group_count: 1,
        network_acl_count: 1,
      });
      return read.body;
    });
    expect(detail).toMatchObject({
      enable_dns_support: true,
      enable_dns_hostnames: false,
      subnet_count: 0,
      internet_gateway_count: 0,
    });
    const tables = (await call('GET', `/api/v1/vpcs/${id}/route-tables`)).body as unknown as Json[];
    expect(tables).toEqual([
      {
        id: expect.stringMatching(/^rtb-[0-9a-f]{17}$/),
        name: 'main',
        routes: [{ destination: '10.0.0.0/16', target: 'local', state: 'active' }],
        subnet_associations: 0,
      },
    ]);
    const acls = (await call('GET', `/api/v1/vpcs/${id}/network-acls`)).body as unknown as Json[];
    expect(acls[0]).toMatchObject({
      is_default: true,
      inbound_rules: [
        { rule_number: 100, protocol: '-1', source: '0.0.0.0/0', action: 'allow' },
        { rule_number: 32767, protocol: '-1', source: '0.0.0.0/0', action: 'deny' },
      ],
    });
    const groups = (await call('GET', `/api/v1/vpcs/${id}/security-groups`)).body as unknown as Json[];
    expect(groups[0]).toMatchObject({
      name: 'default',
      inbound_rules: [{ protocol: '-1', source: groups[0]!.id }],
      outbound_rules: [{ protocol: '-1', source: '0.0.0.0/0' }],
    });
    await deleteAll();
  });

  it.each([
    [
      { name: 'x', cidr_block: '10.0.0.0/8', region: 'us-east-1' },
      'cidr_block: 10.0.0.0/8 is a /8; blocks must be from /16 to /28',
    ],
    [{ name: 'x', cidr_block: '10.0.0.1/16', region: 'us-east-1' }, 'has host bits set'],
    [{ name: 'x', cidr_block: '10.0.0.0/16', region: 'mars-1' }, 'region: "mars-1" is not a region'],
    [{ name: 'x', cidr_block: '10.0.0.0/16', region: 'us-east-1', color: 'red' }, 'color'],
  ])('answers 400 naming the field for %j', async (body, message) => {
    const response = await call('POST', '/api/v1/vpcs', body);
    expect(response.status).toBe(400);
    expect((response.body.error as Json).message).toContain(message);
  });

  it('answers 409 naming the overlapping VPC', async () => {
    const first = await availableVpc('10.10.0.0/16', 'alpha');
    const response = await createVpc('10.10.128.0/17', 'beta');
    expect(response.status).toBe(409);
    expect((response.body.error as Json).message).toBe(
      `cidr_block: 10.10.128.0/17 overlaps VPC "alpha" (${first}) with block 10.10.0.0/16 in the same region`,
    );
    expect((await createVpc('10.10.0.0/16', 'other-region', 'eu-west-1')).status).toBe(201);
    await deleteAll();
  });

  it('lets exactly one of many racing overlapping creates win', async () => {
    const overlapping = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        createVpc(`10.30.0.0/${16 + index}`, `racer-${index}`).then((r) => r.status),
      ).concat(createVpc('10.30.0.0/16', 'wide').then((r) => r.status)),
    );
    expect(overlapping.filter((status) => status === 201)).toHaveLength(1);
    expect(overlapping.filter((status) => status === 409)).toHaveLength(8);
    await deleteAll();
  });

  it('answers 429 naming the limit, without Retry-After', async () => {
    for (const index of [1, 2, 3]) expect((await createVpc(`10.4${index}.0.0/16`)).status).toBe(201);
    const response = await createVpc('10.49.0.0/16');
    expect(response.status).toBe(429);
    expect((response.body.error as Json).message).toContain('3 VPCs, the limit');
    expect(response.headers.get('retry-after')).toBeNull();
    await deleteAll();
  });

  it('answers 401 without credentials, 403 without the scope, and 404 for another organization', async () => {
    expect((await app.call('GET', '/api/v1/vpcs')).status).toBe(401);
    const keyResponse = await app.call('POST', '/v1/auth/api-keys', {
      token: owner.token,
      body: { name: 'reader', scopes: ['vpc:read'] },
    });
    const key = ((await keyResponse.json()) as { data: { key: string } }).data.key;
    const denied = await app.call('POST', '/api/v1/vpcs', {
      headers: { 'x-api-key': key },
      body: { name: 'x', cidr_block: '10.0.0.0/16', region: 'us-east-1' },
    });
    expect(denied.status).toBe(403);
    const id = await availableVpc('10.50.0.0/16');
    const stranger = await registerAndSignIn(app, 'Grace Hopper');
    expect((await call('GET', `/api/v1/vpcs/${id}`, undefined, stranger.token)).status).toBe(404);
    expect((await call('DELETE', `/api/v1/vpcs/${id}`, undefined, stranger.token)).status).toBe(404);
    await deleteAll();
  });

  it('patches only the listed fields and refuses unknown ones by name', async () => {
    const id = await availableVpc('10.60.0.0/16');
    const patched = await call('PATCH', `/api/v1/vpcs/${id}`, { name: 'renamed', enable_flow_logs: true });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ id, name: 'renamed', updated_at: expect.any(String) });
    const refused = await call('PATCH', `/api/v1/vpcs/${id}`, { cidr_block: '10.61.0.0/16' });
    expect(refused.status).toBe(400);
    expect((refused.body.error as Json).message).toContain('cidr_block');
    expect((await call('GET', `/api/v1/vpcs/${id}`)).body).toMatchObject({
      name: 'renamed',
      cidr_block: '10.60.0.0/16',
      enable_flow_logs: true,
    });
    await deleteAll();
  });
});

describe('parts of a VPC', () => {
  it('counts a part created after the VPC was read, and drops it from the count once deleted', async () => {
    const id = await availableVpc('10.80.0.0/16', 'counted');
    // Read twice: the second answer is the one kept while nothing is written.
    for (let read = 0; read < 2; read++) {
      expect((await call('GET', `/api/v1/vpcs/${id}`)).body).toMatchObject({
        name: 'counted',
        subnet_count: 0,
      });
    }
    const subnet = await call('POST', `/api/v1/vpcs/${id}/subnets`, {
      name: 'a',
      cidr_block: '10.80.1.0/24',
      availability_zone: 'us-east-1a',
    });
    expect(subnet.status).toBe(201);
    expect((await call('GET', `/api/v1/vpcs/${id}`)).body).toMatchObject({ subnet_count: 1 });
    expect((await call('PATCH', `/api/v1/vpcs/${id}`, { name: 'recounted' })).status).toBe(200);
    expect((await call('GET', `/api/v1/vpcs/${id}`)).body).toMatchObject({
      name: 'recounted',
      subnet_count: 1,
    });
    expect((await call('DELETE', `/api/v1/vpcs/${id}/subnets/${subnet.body.id as string}`)).status).toBe(204);
    await eventually(async () =>
      expect((await call('GET', `/api/v1/vpcs/${id}`)).body).toMatchObject({ subnet_count: 0 }),
    );
    await deleteAll();
  });

  it('creates subnets, finds free ranges, routes through gateways, and deletes everything in order', async () => {
    const id = await availableVpc('10.70.0.0/16', 'net');
    const subnet = await call('POST', `/api/v1/vpcs/${id}/subnets`, {
      name: 'a',
      cidr_block: '10.70.0.0/24',
      availability_zone: 'us-east-1a',
    });
    expect(subnet.status).toBe(201);
    expect(subnet.body).toMatchObject({ available_ip_count: 251, availability_zone: 'us-east-1a' });
    const subnetId = subnet.body.id as string;
    const sibling = await call('POST', `/api/v1/vpcs/${id}/subnets`, {
      name: 'b',
      cidr_block: '10.70.0.128/25',
      availability_zone: 'us-east-1b',
    });
    expect(sibling.status).toBe(409);
    expect((sibling.body.error as Json).message).toBe(
      `cidr_block: 10.70.0.128/25 overlaps subnet "a" (${subnetId}) with block 10.70.0.0/24`,
    );
    const outside = await call('POST', `/api/v1/vpcs/${id}/subnets`, {
      name: 'c',
      cidr_block: '10.71.0.0/24',
      availability_zone: 'us-east-1z',
    });
    expect(outside.status).toBe(400);
    expect((outside.body.error as Json).message).toContain('availability_zone');
    expect((await call('GET', `/api/v1/vpcs/${id}/available-cidrs?prefix=24&count=2`)).body).toEqual({
      prefix: 24,
      cidr_blocks: ['10.70.1.0/24', '10.70.2.0/24'],
    });

    const badGroup = await call('POST', `/api/v1/vpcs/${id}/security-groups`, {
      name: 'web',
      inbound_rules: [{ protocol: 'tcp', port_range: '443-80', source: 'sg-00000000000000000' }],
    });
    expect(badGroup.status).toBe(400);
    expect((badGroup.body.error as Json).message).toContain('inbound_rules[0].port_range');
    const group = await call('POST', `/api/v1/vpcs/${id}/security-groups`, {
      name: 'web',
      description: 'web',
      inbound_rules: [{ protocol: 'tcp', port_range: '443-443', source: '0.0.0.0/0' }],
    });
    expect(group.status).toBe(201);

    const [table] = (await call('GET', `/api/v1/vpcs/${id}/route-tables`)).body as unknown as Json[];
    const routes = `/api/v1/vpcs/${id}/route-tables/${table!.id as string}/routes`;
    expect(
      (await call('POST', routes, { destination_cidr_block: '0.0.0.0/0', target: 'internet_gateway' }))
        .status,
    ).toBe(400);
    const igw = await call('POST', `/api/v1/vpcs/${id}/internet-gateways`, { name: 'edge' });
    expect(igw.status).toBe(201);
    expect(
      (await call('POST', routes, { destination_cidr_block: '0.0.0.0/0', target: 'internet_gateway' }))
        .status,
    ).toBe(201);
    const again = await call('POST', routes, {
      destination_cidr_block: '0.0.0.0/0',
      target: 'internet_gateway',
    });
    expect(again.status).toBe(409);
    expect((again.body.error as Json).message).toContain(
      `already routes 0.0.0.0/0 to ${igw.body.id as string}`,
    );

    const nat = await call('POST', `/api/v1/vpcs/${id}/nat-gateways`, { subnet_id: subnetId });
    expect(nat.body).toMatchObject({ status: 'pending' });
    await eventually(async () => {
      const [gateway] = (await call('GET', `/api/v1/vpcs/${id}/nat-gateways`)).body as unknown as Json[];
      expect(gateway).toMatchObject({
        status: 'available',
        public_ip: '203.0.113.1',
        elastic_ip_allocation_id: expect.stringMatching(/^eipalloc-[0-9a-f]{17}$/),
      });
    });
    expect((await call('GET', `/api/v1/vpcs/${id}/subnets/${subnetId}`)).body).toMatchObject({
      assigned_ip_count: 1,
      available_ip_count: 250,
    });
    const holding = await call('DELETE', `/api/v1/vpcs/${id}/subnets/${subnetId}`);
    expect(holding.status).toBe(409);
    expect((holding.body.error as Json).message).toContain(nat.body.id as string);

    expect((await call('DELETE', `/api/v1/vpcs/${id}`)).status).toBe(204);
    await eventually(async () =>
      expect((await call('GET', '/api/v1/vpcs?status=deleted')).body).toContainEqual(
        expect.objectContaining({ id, status: 'deleted' }),
      ),
    );
    const namespace = `org-${(await registeredOrg()).slice(4)}`;
    for (const type of [SUBNET, SECURITY_GROUP, NETWORK_ACL, ROUTE_TABLE, INTERNET_GATEWAY, NAT_GATEWAY]) {
      expect((await app.store.list(type, { namespace })).items).toEqual([]);
    }
    expect(await app.database.kysely.selectFrom('vpc_public_ips').selectAll().execute()).toEqual([]);

    const later = () => new Date(app.clock.now().getTime() + 31 * 24 * 3600 * 1000);
    const gc = (config: typeof app.config.jobs) =>
      garbageCollection.run({
        database: app.database,
        config,
        logger: createLogger('silent'),
        now: later,
        signal: new AbortController().signal,
      } as never);
    await gc(app.config.jobs);
    expect((await call('GET', '/api/v1/vpcs?status=deleted')).body).toContainEqual(
      expect.objectContaining({ id }),
    );
    await gc({ ...app.config.jobs, garbageCollection: { dryRun: false, retentionDays: 30 } });
    // A month later the session has expired too, and garbage collection removed it: sign in again.
    const { token } = await signIn(app, owner.email, owner.password);
    expect((await call('GET', '/api/v1/vpcs?status=deleted', undefined, token)).body).toEqual([]);
  });
});

async function registeredOrg(): Promise<string> {
  const me = await app.call('GET', '/v1/auth/me', { token: owner.token });
  return ((await me.json()) as { data: { current_organization_id: string } }).data.current_organization_id;
}
