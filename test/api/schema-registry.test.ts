/**
 * The schema registry of a streaming cluster through its Confluent-compatible API: Confluent's
 * own client (@kafkajs/confluent-schema-registry) with a cluster user over HTTP Basic, and plain
 * HTTP calls for the wire format, the error codes, API keys, members' access tokens (for the
 * registry and the Kafka Connect REST API, which share its access rule) and the cluster's removal.
 */
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countClusterSchemas, removeClusterSchemaRegistry } from '../../schema-registry/index.js';
import { mailedToken, registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

type Json = Record<string, unknown>;
const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';
const USER = { username: 'registry-user', password: 'a-long-enough-password' };

let app: TestPlatform;
let owner: TestAccount;
let clusterId: string;
let registryUrl: string;

async function api(method: string, path: string, body?: unknown, token = owner.token): Promise<Json> {
  const response = await app.call(method, path, { token, body });
  return (await response.json()) as Json;
}

beforeAll(async () => {
  // The registry needs the cluster object and its users' credentials, not running brokers.
  app = await startPlatform({ controllers: false });
  owner = await registerAndSignIn(app);
  const cluster = (await api('POST', '/v1/streaming/clusters', { name: 'registry', region: 'us-east-1' }))
    .data as Json;
  clusterId = cluster.id as string;
  registryUrl = cluster.schema_registry_url as string;
  const user = await app.call('POST', `/v1/streaming/clusters/${clusterId}/users`, {
    token: owner.token,
    body: { name: USER.username, password: USER.password },
  });
  expect(user.status, await user.clone().text()).toBe(201);
}, 60_000);
afterAll(async () => app?.close(), 60_000);

const basic = (username = USER.username, password = USER.password) =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

async function registry(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { authorization: basic() },
) {
  const response = await fetch(`${registryUrl}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': CONTENT_TYPE }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: text ? (JSON.parse(text) as unknown) : undefined,
  };
}

const userV1 = { type: 'record', name: 'User', namespace: 'shop', fields: [{ name: 'id', type: 'int' }] };
const userV2 = { ...userV1, fields: [...userV1.fields, { name: 'email', type: 'string', default: '' }] };
const userBroken = { ...userV1, fields: [...userV1.fields, { name: 'age', type: 'int' }] };

describe('with Confluent’s client and a cluster user', () => {
  const client = () => new SchemaRegistry({ host: registryUrl, auth: USER });

  it('registers an Avro schema, encodes with it and decodes by id', async () => {
    const { id } = await client().register(
      { type: SchemaType.AVRO, schema: JSON.stringify(userV1) },
      { subject: 'users-value' },
    );
    expect(id).toBe(1);
    const encoded = await client().encode(id, { id: 7 });
    expect(encoded[0]).toBe(0);
    expect(await client().decode(encoded)).toEqual({ id: 7 });
    expect(await client().getLatestSchemaId('users-value')).toBe(1);
  });

  it('gives the same schema the same id and version when registered twice', async () => {
    const again = await client().register(
      { type: SchemaType.AVRO, schema: JSON.stringify(userV1, null, 2) },
      { subject: 'users-value' },
    );
    expect(again.id).toBe(1);
    expect((await registry('GET', '/subjects/users-value/versions')).body).toEqual([1]);
  });

  it('evolves with a default and refuses a field without one, naming it', async () => {
    const { id } = await client().register(
      { type: SchemaType.AVRO, schema: JSON.stringify(userV2) },
      { subject: 'users-value' },
    );
    expect(id).toBe(2);
    const refused = await registry('POST', '/subjects/users-value/versions', {
      schema: JSON.stringify(userBroken),
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error_code: 409 });
    expect((refused.body as Json).message).toContain("field 'shop.User.age'");
  });

  it('registers JSON Schema and Protobuf schemas', async () => {
    const json = await client().register(
      {
        type: SchemaType.JSON,
        schema: JSON.stringify({ type: 'object', properties: { sku: { type: 'string' } } }),
      },
      { subject: 'items-value' },
    );
    const proto = await client().register(
      {
        type: SchemaType.PROTOBUF,
        schema: 'syntax = "proto3";\npackage shop;\nmessage Order { int64 id = 1; }',
      },
      { subject: 'orders-value' },
    );
    expect([json.id, proto.id]).toEqual([3, 4]);
    const order = await registry('GET', '/subjects/orders-value/versions/latest');
    expect(order.body).toMatchObject({ subject: 'orders-value', version: 1, id: 4, schemaType: 'PROTOBUF' });
  });
});

describe('the wire format', () => {
  it('answers in Confluent’s content type, with versions, ids and lookups', async () => {
    const latest = await registry('GET', '/subjects/users-value/versions/latest');
    expect(latest.type).toContain(CONTENT_TYPE);
    expect(latest.body).toMatchObject({
      subject: 'users-value',
      version: 2,
      id: 2,
      schema: JSON.stringify(userV2),
    });
    expect((await registry('GET', '/schemas/ids/1')).body).toEqual({ schema: JSON.stringify(userV1) });
    expect((await registry('GET', '/schemas/ids/1/versions')).body).toEqual([
      { subject: 'users-value', version: 1 },
    ]);
    expect((await registry('GET', '/subjects')).body).toEqual(['items-value', 'orders-value', 'users-value']);
    const lookup = await registry('POST', '/subjects/users-value', { schema: JSON.stringify(userV1) });
    expect(lookup.body).toMatchObject({ subject: 'users-value', version: 1, id: 1 });
  });

  it.each([
    ['GET', '/subjects/nobody/versions', 404, 40401, undefined],
    ['GET', '/subjects/users-value/versions/9', 404, 40402, undefined],
    ['GET', '/subjects/users-value/versions/zero', 422, 42202, undefined],
    ['GET', '/schemas/ids/999', 404, 40403, undefined],
    ['GET', '/config/nobody', 404, 40408, undefined],
    ['PUT', '/config/users-value', 422, 42203, { compatibility: 'SIDEWAYS' }],
    ['POST', '/subjects/users-value/versions', 422, 42201, { schema: '{"type": "recrod"}' }],
    ['POST', '/subjects/users-value', 404, 40403, { schema: JSON.stringify(userBroken) }],
    ['GET', '/subjects/users%ZZ/versions', 400, 400, undefined],
  ])('%s %s answers %i with error_code %i', async (method, path, status, code, body) => {
    const answer = await registry(method, path, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    expect(answer.body).toMatchObject({ error_code: code, message: expect.any(String) });
  });

  it('tests compatibility with reasons when verbose', async () => {
    const path = '/compatibility/subjects/users-value/versions/latest';
    expect((await registry('POST', path, { schema: JSON.stringify(userV2) })).body).toEqual({
      is_compatible: true,
    });
    const verbose = await registry('POST', `${path}?verbose=true`, { schema: JSON.stringify(userBroken) });
    expect(verbose.body).toMatchObject({
      is_compatible: false,
      messages: [expect.stringContaining('shop.User.age')],
    });
  });

  it('keeps levels per subject and globally, and the mode', async () => {
    expect((await registry('PUT', '/config/users-value', { compatibility: 'none' })).body).toEqual({
      compatibility: 'NONE',
    });
    expect((await registry('GET', '/config/users-value')).body).toEqual({ compatibilityLevel: 'NONE' });
    expect(
      (await registry('POST', '/subjects/users-value/versions', { schema: JSON.stringify(userBroken) })).body,
    ).toEqual({ id: 5 });
    expect((await registry('DELETE', '/config/users-value')).body).toEqual({ compatibilityLevel: 'NONE' });
    expect((await registry('GET', '/config')).body).toEqual({ compatibilityLevel: 'BACKWARD' });
    expect((await registry('PUT', '/mode', { mode: 'READONLY' })).body).toEqual({ mode: 'READONLY' });
    const readOnly = await registry('POST', '/subjects/other/versions', { schema: '"string"' });
    expect(readOnly).toMatchObject({ status: 422, body: { error_code: 42205 } });
    expect((await registry('PUT', '/mode', { mode: 'READWRITE' })).body).toEqual({ mode: 'READWRITE' });
  });

  it.each(['', '{}', 'null'])(
    'takes %j as no body on the actions that take none, as clients send it',
    async (sent) => {
      const bodiless = (method: string, path: string) =>
        fetch(`${registryUrl}${path}`, {
          method,
          headers: { authorization: basic(), 'content-type': CONTENT_TYPE },
          body: sent,
        });
      expect((await registry('PUT', '/mode/bodiless-value', { mode: 'READONLY' })).status).toBe(200);
      const mode = await bodiless('DELETE', '/mode/bodiless-value');
      expect(mode.status, await mode.clone().text()).toBe(200);
      expect(await mode.json()).toEqual({ mode: 'READONLY' });
      expect((await registry('PUT', '/config/bodiless-value', { compatibility: 'none' })).status).toBe(200);
      const config = await bodiless('DELETE', '/config/bodiless-value');
      expect(config.status, await config.clone().text()).toBe(200);
    },
  );

  it('deletes softly, then permanently', async () => {
    expect((await registry('DELETE', '/subjects/items-value?permanent=true')).body).toMatchObject({
      error_code: 40405,
    });
    expect((await registry('DELETE', '/subjects/items-value')).body).toEqual([1]);
    expect((await registry('GET', '/subjects')).body).not.toContain('items-value');
    expect((await registry('GET', '/subjects?deleted=true')).body).toContain('items-value');
    expect((await registry('DELETE', '/subjects/items-value?permanent=true')).body).toEqual([1]);
    expect((await registry('GET', '/subjects?deleted=true')).body).not.toContain('items-value');
    expect((await registry('DELETE', '/subjects/users-value/versions/3')).body).toBe(3);
    expect((await registry('GET', '/subjects/users-value/versions')).body).toEqual([1, 2]);
  });
});

describe('authentication', () => {
  async function apiKey(scopes: string[]): Promise<string> {
    return ((await api('POST', '/v1/auth/api-keys', { name: scopes.join(' '), scopes })).data as Json)
      .key as string;
  }

  it.each([
    ['no credentials', {}, 401],
    ['a wrong password', { authorization: basic(USER.username, 'not-the-password') }, 401],
    ['an unknown user', { authorization: basic('nobody') }, 401],
  ])('refuses %s with 401', async (_case, headers, status) => {
    const answer = await registry('GET', '/subjects', undefined, headers);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ error_code: 401 });
  });

  it('takes an API key of the organization by its scope', async () => {
    const reader = await apiKey(['streaming:read']);
    expect((await registry('GET', '/subjects', undefined, { 'x-api-key': reader })).status).toBe(200);
    expect(
      (await registry('GET', '/subjects', undefined, { authorization: `ApiKey ${reader}` })).status,
    ).toBe(200);
    const write = await registry('PUT', '/config', { compatibility: 'FULL' }, { 'x-api-key': reader });
    expect(write).toMatchObject({ status: 403, body: { error_code: 403 } });
    const writer = await apiKey(['streaming:write']);
    expect(
      (await registry('PUT', '/config', { compatibility: 'BACKWARD' }, { 'x-api-key': writer })).status,
    ).toBe(200);
  });

  it('answers 404 to an API key of another organization', async () => {
    const stranger = await registerAndSignIn(app, 'Grace Hopper');
    const created = await app.call('POST', '/v1/auth/api-keys', {
      token: stranger.token,
      body: { name: 'theirs', scopes: ['streaming:read'] },
    });
    const key = (((await created.json()) as Json).data as Json).key as string;
    expect((await registry('GET', '/subjects', undefined, { 'x-api-key': key })).status).toBe(404);
  });
});

describe('a member\u2019s access token, on the registry and the Kafka Connect REST API', () => {
  const bearer = (account: TestAccount) => ({ authorization: `Bearer ${account.token}` });
  const validate = (headers: Record<string, string>) =>
    connectCall('PUT', '/connector-plugins/S3SinkConnector/config/validate', { topics: 'orders' }, headers);

  async function connectCall(method: string, path: string, body: unknown, headers: Record<string, string>) {
    const response = await app.request(`/streaming/${clusterId}/connect${path}`, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Json };
  }

  /** A new account made a viewer of the owner's organization, its session switched there. */
  async function verify(account: TestAccount) {
    const verified = await app.call('POST', '/v1/auth/verify-email', {
      body: { token: mailedToken(app, account.email, 'verify-email') },
    });
    expect(verified.status, await verified.clone().text()).toBe(200);
  }

  async function viewer(): Promise<TestAccount> {
    await verify(owner);
    const organizations = (await api('GET', '/v1/organizations')).data as Json[];
    const organizationId = organizations[0]!.id as string;
    const account = await registerAndSignIn(app, 'Katherine Johnson');
    await verify(account);
    const invited = await app.call('POST', `/v1/organizations/${organizationId}/invitations`, {
      token: owner.token,
      body: { email: account.email, role: 'viewer' },
    });
    expect(invited.status, await invited.clone().text()).toBe(201);
    const accepted = await app.call(
      'POST',
      `/v1/invitations/${mailedToken(app, account.email, 'accept-invitation')}/accept`,
      { token: account.token },
    );
    expect(accepted.status, await accepted.clone().text()).toBe(200);
    const switched = await app.call('PATCH', '/v1/auth/me', {
      token: account.token,
      body: { current_organization_id: organizationId },
    });
    expect(switched.status, await switched.clone().text()).toBe(200);
    return account;
  }

  it('lets the organization\u2019s owner read and write both', async () => {
    expect((await registry('GET', '/subjects', undefined, bearer(owner))).status).toBe(200);
    expect((await registry('PUT', '/config', { compatibility: 'BACKWARD' }, bearer(owner))).status).toBe(200);
    expect((await connectCall('GET', '/connector-plugins', undefined, bearer(owner))).status).toBe(200);
    expect((await validate(bearer(owner))).status).toBe(200);
  });

  it('lets a viewer read but refuses their writes with 403 naming the scope', async () => {
    const member = await viewer();
    expect((await registry('GET', '/subjects', undefined, bearer(member))).status).toBe(200);
    const write = await registry('PUT', '/config', { compatibility: 'FULL' }, bearer(member));
    expect(write).toMatchObject({ status: 403, body: { error_code: 403 } });
    expect(JSON.stringify(write.body)).toContain('streaming:write');
    expect((await connectCall('GET', '/connector-plugins', undefined, bearer(member))).status).toBe(200);
    expect(await validate(bearer(member))).toMatchObject({ status: 403, body: { error_code: 403 } });
  });

  it('answers 404 to a member of another organization', async () => {
    const stranger = await registerAndSignIn(app, 'Dorothy Vaughan');
    expect((await registry('GET', '/subjects', undefined, bearer(stranger))).status).toBe(404);
    expect((await connectCall('GET', '/connector-plugins', undefined, bearer(stranger))).status).toBe(404);
  });

  it('still answers 401 without credentials, and to a token that is not one', async () => {
    expect((await registry('GET', '/subjects', undefined, {})).status).toBe(401);
    expect((await connectCall('GET', '/connector-plugins', undefined, {})).status).toBe(401);
    const forged = { authorization: 'Bearer not-a-token' };
    expect((await registry('GET', '/subjects', undefined, forged)).body).toMatchObject({ error_code: 401 });
    expect((await connectCall('GET', '/connectors', undefined, forged)).status).toBe(401);
  });
});

describe('the cluster’s registry as a whole', () => {
  it('counts its schemas and goes with one call', async () => {
    expect(await countClusterSchemas(app.database, clusterId)).toBe(3);
    await removeClusterSchemaRegistry(app.database, clusterId);
    expect(await countClusterSchemas(app.database, clusterId)).toBe(0);
    expect((await registry('GET', '/subjects')).body).toEqual([]);
  });
});
