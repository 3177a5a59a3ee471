import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

let app: TestPlatform;
let owner: TestAccount;

beforeAll(async () => {
  app = await startPlatform();
  owner = await registerAndSignIn(app);
});
afterAll(async () => app?.close());

type Json = Record<string, unknown>;
interface RouteView {
  destination: string;
  target: string;
  state: string;
}

async function call(method: string, path: string, body?: unknown, token = owner.token) {
  const response = await app.call(method, path, { token, body });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json };
}

const message = (body: Json) => (body.error as { message: string }).message;

async function availableVpc(cidr: string): Promise<string> {
  const created = await call('POST', '/api/v1/vpcs', {
    name: 'routed',
    cidr_block: cidr,
    region: 'us-east-1',
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  await eventually(async () =>
    expect((await call('GET', `/api/v1/vpcs/${id}`)).body.status).toBe('available'),
  );
  return id;
}

async function mainTable(vpcId: string): Promise<{ id: string; routes: RouteView[] }> {
  const tables = (await call('GET', `/api/v1/vpcs/${vpcId}/route-tables`)).body as unknown as {
    id: string;
    routes: RouteView[];
  }[];
  return tables[0]!;
}

describe('route maintenance', () => {
  it('deletes a route by destination, refusing the local route and naming a missing one', async () => {
    const vpc = await availableVpc('10.80.0.0/16');
    const table = await mainTable(vpc);
    const routes = `/api/v1/vpcs/${vpc}/route-tables/${table.id}/routes`;
    expect(table.routes).toEqual([{ destination: '10.80.0.0/16', target: 'local', state: 'active' }]);

    const local = await call('DELETE', `${routes}?destination_cidr_block=10.80.0.0/16`);
    expect(local.status).toBe(400);
    expect(message(local.body)).toBe(
      `destination_cidr_block: 10.80.0.0/16 is the local route of VPC ${vpc}, which cannot be deleted`,
    );
    const missing = await call('DELETE', `${routes}?destination_cidr_block=0.0.0.0/0`);
    expect(missing.status).toBe(404);
    expect(message(missing.body)).toBe(`route table ${table.id} has no route to 0.0.0.0/0`);
    const unnamed = await call('DELETE', routes);
    expect(unnamed.status).toBe(400);
    expect(message(unnamed.body)).toContain('destination_cidr_block');
    const malformed = await call('DELETE', `${routes}?destination_cidr_block=0.0.0.0`);
    expect(malformed.status).toBe(400);
    expect(message(malformed.body)).toContain('destination_cidr_block: "0.0.0.0" is not an IPv4 CIDR block');

    expect((await call('POST', `/api/v1/vpcs/${vpc}/internet-gateways`, { name: 'edge' })).status).toBe(201);
    expect(
      (await call('POST', routes, { destination_cidr_block: '0.0.0.0/0', target: 'internet_gateway' }))
        .status,
    ).toBe(201);
    expect((await call('DELETE', `${routes}?destination_cidr_block=0.0.0.0/0`)).status).toBe(204);
    expect((await mainTable(vpc)).routes).toEqual([
      { destination: '10.80.0.0/16', target: 'local', state: 'active' },
    ]);
  });

  it('leaves routes to a deleted internet or NAT gateway as blackhole routes until they are deleted', async () => {
    const vpc = await availableVpc('10.81.0.0/16');
    const table = await mainTable(vpc);
    const routes = `/api/v1/vpcs/${vpc}/route-tables/${table.id}/routes`;
    const igw = (await call('POST', `/api/v1/vpcs/${vpc}/internet-gateways`, {})).body.id as string;
    const subnet = await call('POST', `/api/v1/vpcs/${vpc}/subnets`, {
      name: 'public',
      cidr_block: '10.81.0.0/24',
      availability_zone: 'us-east-1a',
    });
    const nat = (await call('POST', `/api/v1/vpcs/${vpc}/nat-gateways`, { subnet_id: subnet.body.id })).body
      .id as string;
    expect(
      (await call('POST', routes, { destination_cidr_block: '0.0.0.0/0', target: 'internet_gateway' }))
        .status,
    ).toBe(201);
    expect(
      (await call('POST', routes, { destination_cidr_block: '192.168.0.0/16', target: 'nat_gateway' }))
        .status,
    ).toBe(201);
    expect((await mainTable(vpc)).routes).toEqual([
      { destination: '10.81.0.0/16', target: 'local', state: 'active' },
      { destination: '0.0.0.0/0', target: igw, state: 'active' },
      { destination: '192.168.0.0/16', target: nat, state: 'active' },
    ]);

    expect((await call('DELETE', `/api/v1/vpcs/${vpc}/internet-gateways/${igw}`)).status).toBe(204);
    expect((await call('DELETE', `/api/v1/vpcs/${vpc}/nat-gateways/${nat}`)).status).toBe(204);
    expect((await mainTable(vpc)).routes).toEqual([
      { destination: '10.81.0.0/16', target: 'local', state: 'active' },
      { destination: '0.0.0.0/0', target: igw, state: 'blackhole' },
      { destination: '192.168.0.0/16', target: nat, state: 'blackhole' },
    ]);

    const replacement = (await call('POST', `/api/v1/vpcs/${vpc}/internet-gateways`, {})).body.id as string;
    const occupied = await call('POST', routes, {
      destination_cidr_block: '0.0.0.0/0',
      target: 'internet_gateway',
    });
    expect(occupied.status).toBe(409);
    expect(message(occupied.body)).toBe(
      `route table ${table.id} already routes 0.0.0.0/0 to ${igw} (a blackhole route: delete it first)`,
    );
    expect((await call('DELETE', `${routes}?destination_cidr_block=0.0.0.0/0`)).status).toBe(204);
    expect(
      (await call('POST', routes, { destination_cidr_block: '0.0.0.0/0', target: 'internet_gateway' }))
        .status,
    ).toBe(201);
    expect((await mainTable(vpc)).routes).toEqual([
      { destination: '10.81.0.0/16', target: 'local', state: 'active' },
      { destination: '192.168.0.0/16', target: nat, state: 'blackhole' },
      { destination: '0.0.0.0/0', target: replacement, state: 'active' },
    ]);
  });

  it('answers 401 without credentials, 403 without vpc:write, and 404 for another organization', async () => {
    const vpc = await availableVpc('10.82.0.0/16');
    const table = await mainTable(vpc);
    const route = `/api/v1/vpcs/${vpc}/route-tables/${table.id}/routes?destination_cidr_block=0.0.0.0/0`;
    expect((await app.call('DELETE', route)).status).toBe(401);
    const keyResponse = await app.call('POST', '/v1/auth/api-keys', {
      token: owner.token,
      body: { name: 'reader', scopes: ['vpc:read'] },
    });
    const key = ((await keyResponse.json()) as { data: { key: string } }).data.key;
    expect((await app.call('DELETE', route, { headers: { 'x-api-key': key } })).status).toBe(403);
    const stranger = await registerAndSignIn(app, 'Grace Hopper');
    const foreign = await call('DELETE', route, undefined, stranger.token);
    expect(foreign.status).toBe(404);
    expect(message(foreign.body)).toBe(`VPC ${vpc} not found`);
  });
});
