import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEASE_KIND } from '../../control-plane/built-in-kinds.js';
import { aNetwork, networkKind, type Network } from '../fixtures/kube-kinds.js';
import { json, NETWORKS, patchWith, sendJson, TABLE_ACCEPT } from '../fixtures/kube-requests.js';
import { startKubeServer, TENANT_TOKEN, type KubeServer } from '../fixtures/kube-server.js';

let server: KubeServer;
let clock = new Date('2026-03-01T10:00:00Z');
const now = () => clock;

beforeAll(async () => {
  server = await startKubeServer({ now, store: { now } });
});
afterAll(async () => {
  await server.close();
});

async function create(name: string, shape: Parameters<typeof aNetwork>[1] = {}): Promise<Network> {
  const response = await sendJson(server, 'POST', NETWORKS, aNetwork(name, shape));
  expect(response.status).toBe(201);
  return json<Network>(response);
}

async function read(name: string): Promise<Response> {
  return server.request(`${NETWORKS}/${name}`);
}

describe('discovery', () => {
  it('answers /version without credentials, naming the Kubernetes release it follows', async () => {
    const response = await fetchWithout('/version');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      major: '1',
      minor: '33',
      gitVersion: 'v1.33.0-cloudplane',
    });
  });

  it('lists the core version: namespaces, events, and service accounts with their token subresource', async () => {
    expect(await json(await server.request('/api'))).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    expect(await json(await server.request('/api/v1'))).toMatchObject({
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: [
        expect.objectContaining({
          name: 'namespaces',
          namespaced: false,
          kind: 'Namespace',
          shortNames: ['ns'],
        }),
        expect.objectContaining({ name: 'events', namespaced: true, kind: 'Event', shortNames: ['ev'] }),
        expect.objectContaining({
          name: 'serviceaccounts',
          namespaced: true,
          kind: 'ServiceAccount',
          shortNames: ['sa'],
        }),
        expect.objectContaining({
          name: 'serviceaccounts/token',
          kind: 'TokenRequest',
          group: 'authentication.k8s.io',
          verbs: ['create'],
        }),
      ],
    });
  });

  it('lists cloudplane.dev, the groups of the store kinds, coordination.k8s.io, the RBAC, events and review groups', async () => {
    const body = await json<{ groups: { name: string; preferredVersion: { groupVersion: string } }[] }>(
      await server.request('/apis'),
    );
    expect(body.groups.map((group) => group.name)).toEqual([
      'cloudplane.dev',
      'test.cloudplane.dev',
      'coordination.k8s.io',
      'rbac.authorization.k8s.io',
      'events.k8s.io',
      'authentication.k8s.io',
      'authorization.k8s.io',
    ]);
    expect(body.groups[1]?.preferredVersion.groupVersion).toBe('test.cloudplane.dev/v1alpha1');
  });

  it('describes each resource of a group version with its status subresource', async () => {
    const body = await json<{ resources: Record<string, unknown>[] }>(
      await server.request('/apis/test.cloudplane.dev/v1alpha1'),
    );
    expect(body.resources).toEqual([
      {
        name: 'networks',
        singularName: 'network',
        namespaced: true,
        kind: 'Network',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['net'],
        categories: ['cloudplane'],
      },
      {
        name: 'networks/status',
        singularName: '',
        namespaced: true,
        kind: 'Network',
        verbs: ['get', 'patch', 'update'],
      },
    ]);
  });

  it('serves aggregated discovery to a client that asks for it', async () => {
    const response = await server.request('/apis', {
      headers: {
        accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
      },
    });
    expect(response.headers.get('content-type')).toContain('as=APIGroupDiscoveryList');
    const body = await json<{
      kind: string;
      items: { metadata: { name: string }; versions: { resources: unknown[] }[] }[];
    }>(response);
    expect(body.kind).toBe('APIGroupDiscoveryList');
    const group = body.items.find((item) => item.metadata.name === 'test.cloudplane.dev');
    expect(group?.versions[0]?.resources).toEqual([
      expect.objectContaining({
        resource: 'networks',
        scope: 'Namespaced',
        responseKind: { group: 'test.cloudplane.dev', version: 'v1alpha1', kind: 'Network' },
        subresources: [expect.objectContaining({ subresource: 'status' })],
      }),
    ]);
  });

  it('answers 404 NotFound as a Status for a group version it does not serve', async () => {
    const response = await server.request('/apis/example.com/v1');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });
});

describe('OpenAPI', () => {
  it('indexes one v3 document per group version, under the client prefix', async () => {
    const body = await json<{ paths: Record<string, { serverRelativeURL: string }> }>(
      await server.request('/openapi/v3'),
    );
    expect(Object.keys(body.paths)).toEqual(
      expect.arrayContaining(['api/v1', 'apis/test.cloudplane.dev/v1alpha1', 'apis/coordination.k8s.io/v1']),
    );
    expect(body.paths['apis/test.cloudplane.dev/v1alpha1']?.serverRelativeURL).toMatch(
      /^\/openapi\/v3\/apis\/test\.cloudplane\.dev\/v1alpha1\?hash=[0-9A-F]+$/,
    );
  });

  it('lets a client keep a document named by its hash, and revalidates one asked without', async () => {
    const index = await json<{ paths: Record<string, { serverRelativeURL: string }> }>(
      await server.request('/openapi/v3'),
    );
    const url = index.paths['apis/test.cloudplane.dev/v1alpha1']!.serverRelativeURL;
    const hashed = await server.request(url);
    expect(hashed.status).toBe(200);
    expect(hashed.headers.get('cache-control')).toContain('immutable');
    const etag = hashed.headers.get('etag');
    expect(etag).toBe(`"${new URL(url, 'http://x').searchParams.get('hash')}"`);
    expect((await hashed.json()) as unknown).toMatchObject({ openapi: '3.0.0' });

    const plain = await server.request('/openapi/v3/apis/test.cloudplane.dev/v1alpha1');
    expect(plain.headers.get('cache-control')).toBe('no-cache, private');
    expect(plain.headers.get('etag')).toBe(etag);

    const stale = await server.request('/openapi/v3/apis/test.cloudplane.dev/v1alpha1?hash=0BSOLETE', {
      redirect: 'manual',
    });
    expect(stale.status).toBe(301);
    expect(stale.headers.get('location')).toBe(url);
  });

  it('publishes the kind schema by group, version and kind, and PATCH with fieldValidation', async () => {
    const body = await json<{
      components: { schemas: Record<string, Record<string, unknown>> };
      paths: Record<string, Record<string, { parameters: { name: string }[] }>>;
    }>(await server.request('/openapi/v3/apis/test.cloudplane.dev/v1alpha1'));
    const schema = body.components.schemas['dev.cloudplane.test.v1alpha1.Network'];
    expect(schema?.['x-kubernetes-group-version-kind']).toEqual([
      { group: 'test.cloudplane.dev', version: 'v1alpha1', kind: 'Network' },
    ]);
    expect(schema?.description).toBe(networkKind.schema?.description);
    const patch =
      body.paths['/apis/test.cloudplane.dev/v1alpha1/namespaces/{namespace}/networks/{name}']?.patch;
    expect(patch?.parameters.map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(['fieldValidation', 'dryRun', 'fieldManager', 'force']),
    );
  });

  it('lists only the object PATCH operations in v3, with inline parameters, and every operation in v2', async () => {
    const v3 = await json<{
      components: { schemas: Record<string, unknown> };
      paths: Record<string, Record<string, { parameters?: Record<string, unknown>[] }>>;
    }>(await server.request('/openapi/v3/apis/test.cloudplane.dev/v1alpha1'));
    const item = '/apis/test.cloudplane.dev/v1alpha1/namespaces/{namespace}/networks/{name}';
    expect(Object.keys(v3.paths)).toContain(item);
    expect(Object.keys(v3.paths)).not.toContain(`${item}/status`);
    for (const [path, operations] of Object.entries(v3.paths)) {
      expect([path, Object.keys(operations).sort()]).toEqual([path, ['parameters', 'patch']]);
      for (const parameter of operations.patch?.parameters ?? [])
        expect(parameter).not.toHaveProperty('$ref');
    }
    expect(Object.keys(v3.components.schemas)).not.toContain('dev.cloudplane.test.v1alpha1.NetworkList');
    expect(v3.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).toBeDefined();

    const v2 = await json<{
      paths: Record<string, Record<string, unknown>>;
      definitions: Record<string, unknown>;
    }>(await server.request('/openapi/v2'));
    expect(Object.keys(v2.paths[item] ?? {})).toEqual(
      expect.arrayContaining(['get', 'put', 'patch', 'delete', 'parameters']),
    );
    expect(
      Object.keys(v2.paths['/apis/test.cloudplane.dev/v1alpha1/namespaces/{namespace}/networks'] ?? {}),
    ).toEqual(expect.arrayContaining(['get', 'post', 'delete']));
    expect(v2.definitions['dev.cloudplane.test.v1alpha1.NetworkList']).toBeDefined();
  });

  it('serves swagger 2.0 definitions as JSON, and 406 to a client that takes only protobuf', async () => {
    const body = await json<{ swagger: string; definitions: Record<string, unknown> }>(
      await server.request('/openapi/v2'),
    );
    expect(body.swagger).toBe('2.0');
    expect(body.definitions['dev.cloudplane.test.v1alpha1.Network']).toMatchObject({
      'x-kubernetes-group-version-kind': [
        { group: 'test.cloudplane.dev', version: 'v1alpha1', kind: 'Network' },
      ],
    });
    const protobufOnly = await server.request('/openapi/v2', {
      headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' },
    });
    expect(protobufOnly.status).toBe(406);
  });
});

describe('reading and writing objects', () => {
  it('creates, reads, replaces and lists an object', async () => {
    const created = await create('crud', { zones: 1 });
    expect(created.metadata).toMatchObject({ name: 'crud', namespace: 'default', generation: 1 });
    expect(await json(await read('crud'))).toEqual(created);

    const replaced = await sendJson(server, 'PUT', `${NETWORKS}/crud`, {
      ...created,
      spec: { ...created.spec, zones: 2 },
    });
    expect(replaced.status).toBe(200);
    expect(await json(replaced)).toMatchObject({ spec: { zones: 2 }, metadata: { generation: 2 } });

    const list = await json<{ kind: string; metadata: { resourceVersion: string }; items: Network[] }>(
      await server.request(NETWORKS),
    );
    expect(list.kind).toBe('NetworkList');
    expect(list.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(list.items.map((item) => item.metadata.name)).toContain('crud');
  });

  it('records the writer in managedFields', async () => {
    const response = await sendJson(server, 'POST', `${NETWORKS}?fieldManager=deployer`, aNetwork('managed'));
    const created = await json<Network & { metadata: { managedFields: unknown[] } }>(response);
    expect(created.metadata.managedFields).toEqual([
      {
        manager: 'deployer',
        operation: 'Update',
        apiVersion: 'test.cloudplane.dev/v1alpha1',
        time: '2026-03-01T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:cidrBlock': {} } },
      },
    ]);
  });

  it('writes only the status through the status subresource, and ignores status on the object', async () => {
    await create('status-split');
    const status = await patchWith(
      server,
      `${NETWORKS}/status-split/status`,
      'application/merge-patch+json',
      {
        spec: { zones: 5 },
        status: { phase: 'Ready' },
      },
    );
    expect(await json(status)).toMatchObject({ status: { phase: 'Ready' }, metadata: { generation: 1 } });
    const main = await patchWith(server, `${NETWORKS}/status-split`, 'application/merge-patch+json', {
      status: { phase: 'Failed' },
    });
    expect(await json(main)).toMatchObject({ status: { phase: 'Ready' } });
  });

  it('removes an object without finalizers and answers Status Success naming it', async () => {
    const created = await create('doomed');
    const response = await server.request(`${NETWORKS}/doomed`, { method: 'DELETE' });
    expect(await response.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'doomed', group: 'test.cloudplane.dev', kind: 'networks', uid: created.metadata.uid },
      code: 200,
    });
    expect((await read('doomed')).status).toBe(404);
  });

  it('marks an object its finalizer holds and answers it with deletionTimestamp', async () => {
    await create('held', { finalizers: ['test.cloudplane.dev/hold'] });
    const response = await sendJson(server, 'DELETE', `${NETWORKS}/held`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Background',
    });
    expect(response.status).toBe(200);
    expect((await json<Network>(response)).metadata.deletionTimestamp).toBe('2026-03-01T10:00:00Z');
    await patchWith(server, `${NETWORKS}/held`, 'application/json-patch+json', [
      { op: 'remove', path: '/metadata/finalizers' },
    ]);
    expect((await read('held')).status).toBe(404);
  });

  it('deletes a collection by label selector', async () => {
    await create('sweep-1', { labels: { sweep: 'yes' } });
    await create('sweep-2', { labels: { sweep: 'yes' } });
    await create('sweep-keep', { labels: { sweep: 'no' } });
    const response = await server.request(`${NETWORKS}?labelSelector=sweep%3Dyes`, { method: 'DELETE' });
    const body = await json<{ items: Network[] }>(response);
    expect(body.items.map((item) => item.metadata.name).sort()).toEqual(['sweep-1', 'sweep-2']);
    expect((await read('sweep-keep')).status).toBe(200);
  });
});

describe('errors as Status objects', () => {
  it.each([
    ['NotFound', 404, () => read('missing')],
    [
      'AlreadyExists',
      409,
      async () => (await create('twice'), sendJson(server, 'POST', NETWORKS, aNetwork('twice'))),
    ],
    [
      'Conflict',
      409,
      async () => {
        const created = await create('stale');
        await patchWith(server, `${NETWORKS}/stale`, 'application/merge-patch+json', { spec: { zones: 2 } });
        return sendJson(server, 'PUT', `${NETWORKS}/stale`, created);
      },
    ],
    ['Invalid', 422, () => sendJson(server, 'POST', NETWORKS, aNetwork('too-wide', { zones: 9 }))],
    ['BadRequest', 400, () => server.request(`${NETWORKS}?labelSelector=a%20in%20b`)],
    ['Unauthorized', 401, () => fetchWithout(NETWORKS)],
    [
      'Forbidden',
      403,
      () => server.request(NETWORKS, { headers: { authorization: `Bearer ${TENANT_TOKEN}` } }),
    ],
    ['MethodNotAllowed', 405, () => sendJson(server, 'PUT', NETWORKS, aNetwork('x'))],
    [
      'NotAcceptable',
      406,
      () => server.request(NETWORKS, { headers: { accept: 'application/vnd.kubernetes.protobuf' } }),
    ],
    [
      'UnsupportedMediaType',
      415,
      async () => (
        await create('smp'),
        patchWith(server, `${NETWORKS}/smp`, 'application/strategic-merge-patch+json', {})
      ),
    ],
  ])('answers %s with code %i', async (reason, code, call) => {
    const response = await call();
    expect(response.status).toBe(code);
    expect(await response.json()).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason,
      code,
    });
  });

  it('names the object, its group and resource in a NotFound', async () => {
    expect(await json(await read('nowhere'))).toMatchObject({
      message: 'networks.test.cloudplane.dev "nowhere" not found',
      details: { name: 'nowhere', group: 'test.cloudplane.dev', kind: 'networks' },
    });
  });

  it('lists every invalid field as a cause of a 422', async () => {
    const body = { ...aNetwork('bad-fields'), spec: { cidrBlock: 'wide', zones: 0 } };
    const status = await json<{ details: { causes: { field: string }[] } }>(
      await sendJson(server, 'POST', NETWORKS, body),
    );
    expect(status.details.causes.map((cause) => cause.field).sort()).toEqual([
      'spec.cidrBlock',
      'spec.zones',
    ]);
  });

  it('requires a resourceVersion to replace a custom resource', async () => {
    const created = await create('unconditional');
    const { resourceVersion: _rv, ...metadata } = created.metadata;
    const response = await sendJson(server, 'PUT', `${NETWORKS}/unconditional`, { ...created, metadata });
    expect(response.status).toBe(422);
    expect((await json(response)).message).toContain(
      'metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
  });

  it.each([
    [
      'a body for another namespace',
      'POST',
      NETWORKS,
      aNetwork('elsewhere', { namespace: 'other' }),
      'does not match the namespace',
    ],
    [
      'a body with another name',
      'PUT',
      `${NETWORKS}/one-name`,
      aNetwork('other-name'),
      'does not match the name on the URL',
    ],
    ['a body that is not JSON', 'POST', NETWORKS, '{nope', 'not valid JSON'],
  ])('answers 400 for %s', async (_case, method, path, body, message) => {
    const response = await sendJson(server, method, path, body);
    expect(response.status).toBe(400);
    expect((await json(response)).message).toContain(message);
  });
});

describe('JSON patch', () => {
  it.each([
    [
      'add',
      [{ op: 'add', path: '/spec/dnsServers', value: ['10.0.0.2'] }],
      { dnsServers: ['10.0.0.2'], zones: 2 },
    ],
    [
      'add to the end of a list',
      [{ op: 'add', path: '/spec/dnsServers/-', value: '9.9.9.9' }],
      { dnsServers: ['1.1.1.1', '9.9.9.9'] },
    ],
    ['remove', [{ op: 'remove', path: '/spec/zones' }], { zones: undefined }],
    ['replace', [{ op: 'replace', path: '/spec/zones', value: 3 }], { zones: 3 }],
    ['move', [{ op: 'move', from: '/spec/tags/a', path: '/spec/tags/b' }], { tags: { b: 'x' } }],
    ['copy', [{ op: 'copy', from: '/spec/tags/a', path: '/spec/tags/c' }], { tags: { a: 'x', c: 'x' } }],
    [
      'a passing test',
      [
        { op: 'test', path: '/spec/zones', value: 2 },
        { op: 'replace', path: '/spec/zones', value: 4 },
      ],
      { zones: 4 },
    ],
  ])('applies %s', async (operation, patch, expected) => {
    const name = `jp-${operation.replace(/\W+/g, '-')}`;
    const body = {
      ...aNetwork(name),
      spec: { cidrBlock: '10.0.0.0/16', zones: 2, tags: { a: 'x' }, dnsServers: ['1.1.1.1'] },
    };
    await sendJson(server, 'POST', NETWORKS, body);
    const response = await patchWith(server, `${NETWORKS}/${name}`, 'application/json-patch+json', patch);
    expect(response.status).toBe(200);
    const spec = (await json<Network>(response)).spec as Record<string, unknown>;
    for (const [field, value] of Object.entries(expected)) expect(spec[field]).toEqual(value);
  });

  it('answers 422 for a failing test and writes none of the patch', async () => {
    const created = await create('jp-test-fails', { zones: 2 });
    const response = await patchWith(server, `${NETWORKS}/jp-test-fails`, 'application/json-patch+json', [
      { op: 'replace', path: '/spec/zones', value: 5 },
      { op: 'test', path: '/spec/zones', value: 3 },
    ]);
    expect(response.status).toBe(422);
    expect((await json(response)).message).toContain('test failed');
    expect(await json(await read('jp-test-fails'))).toEqual(created);
  });

  it.each([
    ['not an array', { op: 'add' }],
    ['an unknown op', [{ op: 'merge', path: '/spec' }]],
    ['a path that is not a pointer', [{ op: 'remove', path: 'spec' }]],
  ])('answers 400 for a patch that is %s', async (_case, patch) => {
    await create(`jp-bad-${_case.length}`);
    const response = await patchWith(
      server,
      `${NETWORKS}/jp-bad-${_case.length}`,
      'application/json-patch+json',
      patch,
    );
    expect(response.status).toBe(400);
  });
});

describe('merge patch', () => {
  it('merges objects and removes keys set to null', async () => {
    await sendJson(server, 'POST', NETWORKS, {
      ...aNetwork('mp'),
      spec: { cidrBlock: '10.0.0.0/16', tags: { a: '1', b: '2' } },
    });
    const response = await patchWith(server, `${NETWORKS}/mp`, 'application/merge-patch+json', {
      spec: { tags: { a: null, c: '3' } },
    });
    expect((await json<Network>(response)).spec?.tags).toEqual({ b: '2', c: '3' });
  });

  it('answers 409 for a patch pinning a stale resourceVersion', async () => {
    const created = await create('mp-pinned');
    await patchWith(server, `${NETWORKS}/mp-pinned`, 'application/merge-patch+json', { spec: { zones: 2 } });
    const response = await patchWith(server, `${NETWORKS}/mp-pinned`, 'application/merge-patch+json', {
      metadata: { resourceVersion: created.metadata.resourceVersion },
      spec: { zones: 3 },
    });
    expect(response.status).toBe(409);
  });
});

describe('dryRun=All', () => {
  it.each([
    ['create', 'dry-new', () => sendJson(server, 'POST', `${NETWORKS}?dryRun=All`, aNetwork('dry-new')), 201],
    [
      'patch',
      'dry-patch',
      () =>
        patchWith(server, `${NETWORKS}/dry-patch?dryRun=All`, 'application/merge-patch+json', {
          spec: { zones: 6 },
        }),
      200,
    ],
    [
      'delete',
      'dry-delete',
      () => server.request(`${NETWORKS}/dry-delete?dryRun=All`, { method: 'DELETE' }),
      200,
    ],
  ])('answers a %s as if done and writes nothing', async (verb, name, call, code) => {
    if (verb !== 'create') await create(name);
    const before = server.store.currentResourceVersion();
    const response = await call();
    expect(response.status).toBe(code);
    expect(server.store.currentResourceVersion()).toBe(before);
    const stored = await read(name);
    if (verb === 'create') expect(stored.status).toBe(404);
    else expect((await json<Network>(stored)).spec?.zones).toBeUndefined();
  });

  it('refuses a dryRun value other than All', async () => {
    const response = await sendJson(server, 'POST', `${NETWORKS}?dryRun=Some`, aNetwork('dry-bad'));
    expect(response.status).toBe(400);
  });
});

describe('field validation', () => {
  const withUnknown = (name: string) => ({
    ...aNetwork(name),
    spec: { cidrBlock: '10.0.0.0/16', colour: 'red' },
  });

  it('with Strict answers 400 naming the unknown field and writes nothing', async () => {
    const response = await sendJson(
      server,
      'POST',
      `${NETWORKS}?fieldValidation=Strict`,
      withUnknown('strict'),
    );
    expect(response.status).toBe(400);
    expect((await json(response)).message).toContain('unknown field "spec.colour"');
    expect((await read('strict')).status).toBe(404);
  });

  it('with Warn (the default) writes without the field and warns about it', async () => {
    const response = await sendJson(server, 'POST', NETWORKS, withUnknown('warned'));
    expect(response.status).toBe(201);
    expect(response.headers.get('warning')).toBe('299 - "unknown field \\"spec.colour\\""');
    expect((await json<Network>(response)).spec).toEqual({ cidrBlock: '10.0.0.0/16' });
  });

  it('with Ignore drops the field silently', async () => {
    const response = await sendJson(
      server,
      'POST',
      `${NETWORKS}?fieldValidation=Ignore`,
      withUnknown('ignored'),
    );
    expect(response.status).toBe(201);
    expect(response.headers.get('warning')).toBeNull();
  });
});

describe('lists', () => {
  beforeAll(async () => {
    for (const index of [1, 2, 3, 4, 5])
      await create(`page-${index}`, { labels: { paged: 'yes', odd: String(index % 2) } });
  });

  it('pages with limit and continue until no token remains', async () => {
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const query = `labelSelector=paged%3Dyes&limit=2${token ? `&continue=${encodeURIComponent(token)}` : ''}`;
      const page = await json<{ metadata: { continue?: string }; items: Network[] }>(
        await server.request(`${NETWORKS}?${query}`),
      );
      names.push(...page.items.map((item) => item.metadata.name));
      token = page.metadata.continue;
      pages += 1;
    } while (token);
    expect(names).toEqual(['page-1', 'page-2', 'page-3', 'page-4', 'page-5']);
    expect(pages).toBe(3);
  });

  it.each([
    ['metadata.name=page-2', ['page-2']],
    ['metadata.name!=page-2', ['page-1', 'page-3', 'page-4', 'page-5']],
    ['metadata.namespace=default,metadata.name==page-5', ['page-5']],
  ])('filters by the field selector %s', async (selector, expected) => {
    const query = `labelSelector=paged%3Dyes&fieldSelector=${encodeURIComponent(selector)}`;
    const page = await json<{ items: Network[] }>(await server.request(`${NETWORKS}?${query}`));
    expect(page.items.map((item) => item.metadata.name)).toEqual(expected);
  });

  it('answers 400 for a field selector on an unsupported field', async () => {
    const response = await server.request(`${NETWORKS}?fieldSelector=spec.zones%3D1`);
    expect(response.status).toBe(400);
    expect((await json(response)).message).toBe('field label not supported: spec.zones');
  });

  it('lists every namespace at the resource path without one', async () => {
    const other = '/apis/test.cloudplane.dev/v1alpha1/namespaces/other-team/networks';
    await sendJson(server, 'POST', other, aNetwork('elsewhere', { namespace: 'other-team' }));
    const page = await json<{ items: Network[] }>(
      await server.request('/apis/test.cloudplane.dev/v1alpha1/networks'),
    );
    expect(new Set(page.items.map((item) => item.metadata.namespace))).toEqual(
      new Set(['default', 'other-team']),
    );
  });
});

describe('Table output', () => {
  it('answers Name, the printer columns and Age, with rows carrying object metadata', async () => {
    clock = new Date('2026-03-01T10:00:00Z');
    await create('tabled', { zones: 3 });
    await patchWith(server, `${NETWORKS}/tabled/status`, 'application/merge-patch+json', {
      status: { phase: 'Ready', conditions: [{ type: 'Ready', status: 'True' }] },
    });
    clock = new Date('2026-03-01T10:05:00Z');
    const response = await server.request(`${NETWORKS}/tabled?includeObject=Metadata`, {
      headers: { accept: TABLE_ACCEPT },
    });
    const table = await json<{
      kind: string;
      columnDefinitions: { name: string; type: string; priority: number }[];
      rows: { cells: unknown[]; object: { kind: string; metadata: { name: string } } }[];
    }>(response);
    expect(table.kind).toBe('Table');
    expect(table.columnDefinitions.map((column) => [column.name, column.type, column.priority])).toEqual([
      ['Name', 'string', 0],
      ['CIDR', 'string', 0],
      ['Phase', 'string', 0],
      ['Ready', 'string', 0],
      ['Zones', 'integer', 1],
      ['Age', 'date', 0],
    ]);
    expect(table.rows[0]?.cells).toEqual(['tabled', '10.0.0.0/16', 'Ready', 'True', 3, '5m']);
    expect(table.rows[0]?.object).toMatchObject({
      kind: 'PartialObjectMetadata',
      metadata: { name: 'tabled' },
    });
  });

  it('answers a list as one Table with the list resourceVersion', async () => {
    const table = await json<{ metadata: { resourceVersion: string }; rows: unknown[] }>(
      await server.request(`${NETWORKS}?labelSelector=paged%3Dyes`, { headers: { accept: TABLE_ACCEPT } }),
    );
    expect(table.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(table.rows).toHaveLength(5);
  });

  it('answers PartialObjectMetadataList to a metadata-only client', async () => {
    const response = await server.request(`${NETWORKS}?labelSelector=paged%3Dyes`, {
      headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' },
    });
    const body = await json<{ kind: string; items: { kind: string; spec?: unknown }[] }>(response);
    expect(body.kind).toBe('PartialObjectMetadataList');
    expect(body.items[0]).toMatchObject({ kind: 'PartialObjectMetadata' });
    expect(body.items[0]?.spec).toBeUndefined();
  });
});

describe('leases', () => {
  const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
  const lease = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'leader' },
    spec: { holderIdentity: 'a' },
  };

  it('creates, replaces without a resourceVersion, and shows the holder', async () => {
    expect((await sendJson(server, 'POST', LEASES, lease)).status).toBe(201);
    const replaced = await sendJson(server, 'PUT', `${LEASES}/leader`, {
      ...lease,
      spec: { holderIdentity: 'b', leaseDurationSeconds: 15 },
    });
    expect(await json(replaced)).toMatchObject({ spec: { holderIdentity: 'b', leaseDurationSeconds: 15 } });
    const table = await json<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }>(
      await server.request(LEASES, { headers: { accept: TABLE_ACCEPT } }),
    );
    expect(table.columnDefinitions.map((column) => column.name)).toEqual(['Name', 'Holder', 'Age']);
    expect(table.rows[0]?.cells.slice(0, 2)).toEqual(['leader', 'b']);
  });

  it('has no status subresource and takes a strategic merge patch as a merge patch', async () => {
    expect((await server.request(`${LEASES}/leader/status`)).status).toBe(404);
    const patched = await patchWith(server, `${LEASES}/leader`, 'application/strategic-merge-patch+json', {
      spec: { holderIdentity: 'c' },
    });
    expect(await json(patched)).toMatchObject({ spec: { holderIdentity: 'c' } });
  });

  it('describes itself as coordination.k8s.io/v1 Lease', () => {
    expect(LEASE_KIND).toMatchObject({
      group: 'coordination.k8s.io',
      version: 'v1',
      kind: 'Lease',
      plural: 'leases',
      namespaced: true,
    });
    expect(LEASE_KIND.schema).toBeUndefined();
  });
});

async function fetchWithout(path: string): Promise<Response> {
  return server.request(path, { headers: { authorization: '' } });
}
