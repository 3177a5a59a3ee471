/**
 * A DELETE answered 204 is done: the resource no longer shows — a GET is a 404 and lists leave it
 * out — even while a finalizer still holds it in the store. The families whose deletion a user
 * watches (VPCs, organizations) answer 202 and show `status: deleting` instead. Every object is
 * held by a finalizer of the test before each DELETE, as a controller's slow cleanup would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../control-plane/types.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';
import { aStackTemplate } from '../fixtures/stacks.js';

const HOLD = 'test.cloudplane.dev/hold';

let app: TestPlatform;
let owner: TestAccount;

beforeAll(async () => {
  // The facade alone: nothing but the test's finalizer decides when an object goes. The chat
  // integration's webhook is a local address nobody asks.
  app = await startPlatform({ controllers: false, env: { CLOUDPLANE_EGRESS_ALLOW_PRIVATE: 'true' } });
  owner = await registerAndSignIn(app);
});
afterAll(async () => app?.close());

type Json = Record<string, unknown>;

async function call(method: string, path: string, body?: unknown) {
  const response = await app.call(method, path, { token: owner.token, body });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as unknown };
}

async function created(path: string, body: unknown): Promise<string> {
  const answer = await call('POST', path, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  const object = answer.body as Json & { data?: Json };
  return (object.data?.id ?? object.id ?? object.name) as string;
}

/** Every object in the store gets the test's finalizer: a DELETE then only marks it. */
async function holdEverything(): Promise<void> {
  for (const kind of app.store.kinds()) {
    if (!kind.namespaced) continue;
    for (const object of (await app.store.list<KubeObject>(kind, {})).items) {
      const finalizers = object.metadata.finalizers ?? [];
      if (finalizers.includes(HOLD) || object.metadata.deletionTimestamp) continue;
      await app.store.patch(kind, object.metadata.namespace, object.metadata.name, {
        metadata: { finalizers: [...finalizers, HOLD] },
      });
    }
  }
}

/** How many objects a deletion is holding: the proof that the cleanup had not finished. */
async function heldCount(): Promise<number> {
  let count = 0;
  for (const kind of app.store.kinds()) {
    if (!kind.namespaced) continue;
    const { items } = await app.store.list<KubeObject>(kind, {});
    count += items.filter((object) => object.metadata.deletionTimestamp).length;
  }
  return count;
}

/** The ids a list answer shows, in either envelope style. */
function idsOf(body: unknown): unknown[] {
  const rows = (Array.isArray(body) ? body : (body as { data: unknown[] }).data) as Json[];
  return rows.map((row) => row.id ?? row.name);
}

interface Family {
  /**
   * Makes one resource and answers its paths; `readable: false` where it has no GET of its own,
   * `record: true` for a data-plane record, which no finalizer holds.
   */
  make(): Promise<{ item: string; list: string; id: string; readable?: false; record?: true }>;
}

const STREAMING = '/v1/streaming/clusters';

const FAMILIES: [string, Family][] = [
  [
    'streaming clusters',
    {
      async make() {
        const id = await created(STREAMING, { name: 'gone', region: 'us-east-1' });
        return { item: `${STREAMING}/${id}`, list: STREAMING, id };
      },
    },
  ],
  [
    'streaming topics',
    {
      async make() {
        const cluster = await created(STREAMING, { name: 'with-topic', region: 'us-east-1' });
        await created(`${STREAMING}/${cluster}/topics`, { name: 'orders' });
        const list = `${STREAMING}/${cluster}/topics`;
        return { item: `${list}/orders`, list, id: 'orders' };
      },
    },
  ],
  [
    'streaming users',
    {
      async make() {
        const cluster = await created(STREAMING, { name: 'with-user', region: 'us-east-1' });
        await created(`${STREAMING}/${cluster}/users`, { name: 'billing', password: 'a-long-password-1' });
        const list = `${STREAMING}/${cluster}/users`;
        return { item: `${list}/billing`, list, id: 'billing' };
      },
    },
  ],
  [
    'databases',
    {
      async make() {
        const id = await created('/v1/databases', { name: 'gone', engine: 'mongodb' });
        return { item: `/v1/databases/${id}`, list: '/v1/databases', id };
      },
    },
  ],
  [
    'NFS shares',
    {
      async make() {
        const id = await created('/v1/nfs-shares', { name: 'gone', size_gb: 1 });
        return { item: `/v1/nfs-shares/${id}`, list: '/v1/nfs-shares', id };
      },
    },
  ],
  [
    'backups',
    {
      async make() {
        const database = await created('/v1/databases', { name: 'backed-up', engine: 'mongodb' });
        const id = await created('/v1/backups', { resource_id: database });
        return { item: `/v1/backups/${id}`, list: '/v1/backups', id };
      },
    },
  ],
  [
    'vault clusters',
    {
      async make() {
        const id = await created('/api/v1/vault', { name: 'gone' });
        return { item: `/api/v1/vault/${id}`, list: '/api/v1/vault', id };
      },
    },
  ],
  [
    'integrations',
    {
      async make() {
        const id = await created('/api/v1/integrations', {
          name: 'gone',
          type: 'chat',
          credentials: { webhook_url: 'http://127.0.0.1:9/services/T1/B1/x' },
          configuration: { channels: { deployments: '#deployments' } },
        });
        return { item: `/api/v1/integrations/${id}`, list: '/api/v1/integrations', id };
      },
    },
  ],
  [
    'stacks',
    {
      async make() {
        const id = await created('/v1/stacks', {
          name: 'gone',
          tenant: 'acme',
          template: aStackTemplate({ resources: {} }),
        });
        return { item: `/v1/stacks/${id}`, list: '/v1/stacks', id };
      },
    },
  ],
  [
    'subnets',
    {
      async make() {
        const vpc = await created('/api/v1/vpcs', {
          name: 'subnets',
          cidr_block: '10.1.0.0/16',
          region: 'us-east-1',
        });
        const id = await created(`/api/v1/vpcs/${vpc}/subnets`, {
          name: 'a',
          cidr_block: '10.1.0.0/24',
          availability_zone: 'us-east-1a',
        });
        const list = `/api/v1/vpcs/${vpc}/subnets`;
        return { item: `${list}/${id}`, list, id };
      },
    },
  ],
  [
    'security groups',
    {
      async make() {
        const vpc = await created('/api/v1/vpcs', {
          name: 'groups',
          cidr_block: '10.2.0.0/16',
          region: 'us-east-1',
        });
        const id = await created(`/api/v1/vpcs/${vpc}/security-groups`, { name: 'web', description: 'web' });
        const list = `/api/v1/vpcs/${vpc}/security-groups`;
        return { item: `${list}/${id}`, list, id, readable: false };
      },
    },
  ],
  [
    'internet gateways',
    {
      async make() {
        const vpc = await created('/api/v1/vpcs', {
          name: 'edges',
          cidr_block: '10.3.0.0/16',
          region: 'us-east-1',
        });
        const id = await created(`/api/v1/vpcs/${vpc}/internet-gateways`, { name: 'edge' });
        const list = `/api/v1/vpcs/${vpc}/internet-gateways`;
        return { item: `${list}/${id}`, list, id, readable: false };
      },
    },
  ],
  [
    'NAT gateways',
    {
      async make() {
        const vpc = await created('/api/v1/vpcs', {
          name: 'exits',
          cidr_block: '10.4.0.0/16',
          region: 'us-east-1',
        });
        const subnet = await created(`/api/v1/vpcs/${vpc}/subnets`, {
          name: 'public',
          cidr_block: '10.4.0.0/24',
          availability_zone: 'us-east-1a',
        });
        const id = await created(`/api/v1/vpcs/${vpc}/nat-gateways`, { subnet_id: subnet });
        const list = `/api/v1/vpcs/${vpc}/nat-gateways`;
        return { item: `${list}/${id}`, list, id, readable: false };
      },
    },
  ],
  [
    'API keys',
    {
      async make() {
        const id = await created('/v1/auth/api-keys', { name: 'gone', scopes: ['vpc:read'] });
        return {
          item: `/v1/auth/api-keys/${id}`,
          list: '/v1/auth/api-keys',
          id,
          readable: false,
          record: true,
        };
      },
    },
  ],
];

describe('a DELETE answered 204', () => {
  it.each(FAMILIES)(
    'leaves %s out of GET and lists while a finalizer still holds them',
    async (_family, family) => {
      const { item, list, id, readable, record } = await family.make();
      expect(idsOf((await call('GET', list)).body)).toContain(id);
      await holdEverything();
      const held = await heldCount();

      const deleted = await call('DELETE', item);
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);

      if (!record) expect(await heldCount()).toBeGreaterThan(held);
      if (readable !== false) {
        const read = await call('GET', item);
        expect(read.status, JSON.stringify(read.body)).toBe(404);
      }
      expect(idsOf((await call('GET', list)).body)).not.toContain(id);
      expect((await call('DELETE', item)).status).toBe(404);
    },
  );
  it.each([
    ['topic', 'topics', { name: 'again' }],
    ['user', 'users', { name: 'again', password: 'a-long-password-1' }],
  ])(
    'answers a %s created again while its cleanup goes on with 409 saying so',
    async (noun, plural, body) => {
      const cluster = await created(STREAMING, { name: `again-${plural}`, region: 'us-east-1' });
      const list = `${STREAMING}/${cluster}/${plural}`;
      await created(list, body);
      await holdEverything();
      expect((await call('DELETE', `${list}/again`)).status).toBe(204);
      const again = await call('POST', list, body);
      expect(again.status).toBe(409);
      expect(JSON.stringify(again.body)).toContain(`${noun} again is still being deleted`);
    },
  );
});

describe('a DELETE answered 202', () => {
  it('shows an organization deleting while its resources go', async () => {
    const id = await created('/v1/organizations', { name: 'Watched' });
    const deleting = await call('DELETE', `/v1/organizations/${id}`, { name: 'Watched' });
    expect(deleting.status, JSON.stringify(deleting.body)).toBe(202);
    expect((deleting.body as { data: Json }).data).toMatchObject({ id, status: 'deleting' });
  });
});

describe("the spec's soft delete: a VPC", () => {
  it('answers 204 as the spec fixes it, then shows the VPC deleting, in its GET and in lists, while its parts are removed', async () => {
    const id = await created('/api/v1/vpcs', {
      name: 'watched',
      cidr_block: '10.9.0.0/16',
      region: 'us-east-1',
    });
    await holdEverything();

    expect((await call('DELETE', `/api/v1/vpcs/${id}`)).status).toBe(204);
    expect((await call('GET', `/api/v1/vpcs/${id}`)).body).toMatchObject({ id, status: 'deleting' });
    expect((await call('GET', '/api/v1/vpcs?status=deleting')).body).toContainEqual(
      expect.objectContaining({ id, status: 'deleting' }),
    );
  });
});
