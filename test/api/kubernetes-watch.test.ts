import { afterEach, describe, expect, it } from 'vitest';
import { aNetwork } from '../fixtures/kube-kinds.js';
import { json, NETWORKS, patchWith, sendJson, TABLE_ACCEPT, WatchLines } from '../fixtures/kube-requests.js';
import {
  startKubeServer,
  TENANT_TOKEN,
  type KubeServer,
  type KubeServerOptions,
} from '../fixtures/kube-server.js';

const servers: KubeServer[] = [];

async function start(options: KubeServerOptions = {}): Promise<KubeServer> {
  const server = await startKubeServer(options);
  servers.push(server);
  return server;
}

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function watch(
  server: KubeServer,
  query: string,
  headers: Record<string, string> = {},
): Promise<WatchLines> {
  const response = await server.request(`${NETWORKS}?watch=1&${query}`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('application/json');
  return new WatchLines(response);
}

const summary = (event: { type: string; object: { metadata?: Record<string, unknown> } } | undefined) => [
  event?.type,
  event?.object.metadata?.name,
];

describe('watch', () => {
  it('streams newline-delimited events: current objects as ADDED, then changes', async () => {
    const server = await start();
    await sendJson(server, 'POST', NETWORKS, aNetwork('first'));
    const stream = await watch(server, 'resourceVersion=0');
    expect(summary(await stream.next())).toEqual(['ADDED', 'first']);
    await patchWith(server, `${NETWORKS}/first`, 'application/merge-patch+json', { spec: { zones: 2 } });
    await server.request(`${NETWORKS}/first`, { method: 'DELETE' });
    expect(summary(await stream.next())).toEqual(['MODIFIED', 'first']);
    expect(summary(await stream.next())).toEqual(['DELETED', 'first']);
    for (const line of stream.lines)
      expect(Object.keys(JSON.parse(line) as object)).toEqual(['type', 'object']);
    await stream.cancel();
  });

  it('resumes after a resourceVersion with only later changes', async () => {
    const server = await start();
    await sendJson(server, 'POST', NETWORKS, aNetwork('before'));
    const list = await json<{ metadata: { resourceVersion: string } }>(await server.request(NETWORKS));
    await sendJson(server, 'POST', NETWORKS, aNetwork('after'));
    const stream = await watch(server, `resourceVersion=${list.metadata.resourceVersion}`);
    expect(summary(await stream.next())).toEqual(['ADDED', 'after']);
    await stream.cancel();
  });

  it('ends with an ERROR event carrying 410 Expired when the resourceVersion is too old', async () => {
    const server = await start({ store: { historyLimit: 2 } });
    for (const name of ['a', 'b', 'c', 'd']) await sendJson(server, 'POST', NETWORKS, aNetwork(name));
    const stream = await watch(server, 'resourceVersion=1');
    expect(await stream.next()).toEqual({
      type: 'ERROR',
      object: expect.objectContaining({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 }),
    });
    expect(await stream.next()).toBeUndefined();
  });

  it('sends BOOKMARK events with the current resourceVersion when asked', async () => {
    const server = await start({ store: { bookmarkIntervalMs: 5 } });
    await sendJson(server, 'POST', NETWORKS, aNetwork('marked'));
    const stream = await watch(server, 'resourceVersion=0&allowWatchBookmarks=true');
    const bookmark = await stream.until((event) => event.type === 'BOOKMARK');
    expect(bookmark.object).toEqual({
      apiVersion: 'test.cloudplane.dev/v1alpha1',
      kind: 'Network',
      metadata: { resourceVersion: server.store.currentResourceVersion() },
    });
    await stream.cancel();
  });

  it('filters by label and field selector', async () => {
    const server = await start();
    const stream = await watch(server, 'labelSelector=tier%3Dgold&fieldSelector=metadata.name%3Dwanted');
    await sendJson(server, 'POST', NETWORKS, aNetwork('unlabelled'));
    await sendJson(server, 'POST', NETWORKS, aNetwork('other', { labels: { tier: 'gold' } }));
    await sendJson(server, 'POST', NETWORKS, aNetwork('wanted', { labels: { tier: 'gold' } }));
    expect(summary(await stream.next())).toEqual(['ADDED', 'wanted']);
    await stream.cancel();
  });

  it('ends the stream after timeoutSeconds', async () => {
    const server = await start();
    const stream = await watch(server, 'timeoutSeconds=1');
    expect(await stream.next()).toBeUndefined();
  });

  it('streams Table rows to kubectl get --watch', async () => {
    const server = await start();
    const stream = await watch(server, 'resourceVersion=0', { accept: TABLE_ACCEPT });
    await sendJson(server, 'POST', NETWORKS, aNetwork('tabled'));
    const event = await stream.next();
    expect(event?.type).toBe('ADDED');
    expect(event?.object).toMatchObject({
      kind: 'Table',
      rows: [{ cells: ['tabled', '10.0.0.0/16', null, null, null, '0s'] }],
    });
    await stream.cancel();
  });

  it('answers 400 before streaming for a malformed resourceVersion', async () => {
    const server = await start();
    const response = await server.request(`${NETWORKS}?watch=true&resourceVersion=abc`);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
  });

  it('shows a tenant watching every namespace only its own', async () => {
    const server = await start();
    const response = await server.request('/apis/test.cloudplane.dev/v1alpha1/networks?watch=1', {
      headers: { authorization: `Bearer ${TENANT_TOKEN}` },
    });
    const stream = new WatchLines(response);
    await sendJson(server, 'POST', NETWORKS, aNetwork('not-theirs'));
    const tenantNetworks = '/apis/test.cloudplane.dev/v1alpha1/namespaces/tenant-a/networks';
    await sendJson(server, 'POST', tenantNetworks, aNetwork('theirs', { namespace: 'tenant-a' }));
    expect(summary(await stream.next())).toEqual(['ADDED', 'theirs']);
    await stream.cancel();
  });
});

describe('watch-list and resourceVersionMatch', () => {
  it('sends the current objects, then the initial-events-end bookmark, then changes', async () => {
    const server = await start();
    await sendJson(server, 'POST', NETWORKS, aNetwork('one'));
    await sendJson(server, 'POST', NETWORKS, aNetwork('two'));
    const stream = await watch(
      server,
      'sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    expect(summary(await stream.next())).toEqual(['ADDED', 'one']);
    expect(summary(await stream.next())).toEqual(['ADDED', 'two']);
    const end = await stream.next();
    const list = await json<{ metadata: { resourceVersion: string } }>(await server.request(NETWORKS));
    expect(end).toEqual({
      type: 'BOOKMARK',
      object: {
        apiVersion: 'test.cloudplane.dev/v1alpha1',
        kind: 'Network',
        metadata: {
          name: '',
          resourceVersion: list.metadata.resourceVersion,
          annotations: { 'k8s.io/initial-events-end': 'true' },
        },
      },
    });
    await sendJson(server, 'POST', NETWORKS, aNetwork('three'));
    expect(summary(await stream.next())).toEqual(['ADDED', 'three']);
    await stream.cancel();
  });

  it('sends the bookmark at once for an empty collection instead of hanging', async () => {
    const server = await start();
    const stream = await watch(
      server,
      'sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    const end = await stream.next();
    expect(end?.type).toBe('BOOKMARK');
    expect(end?.object.metadata?.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    await stream.cancel();
  });

  it.each([
    [
      'without resourceVersionMatch',
      'sendInitialEvents=true&allowWatchBookmarks=true',
      'resourceVersionMatch must be "NotOlderThan"',
    ],
    [
      'without bookmarks',
      'sendInitialEvents=true&resourceVersionMatch=NotOlderThan',
      'allowWatchBookmarks must be true',
    ],
  ])('refuses a watch-list %s with a 400 naming the parameter', async (_case, query, message) => {
    const server = await start();
    const response = await server.request(`${NETWORKS}?watch=1&${query}`);
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({
      kind: 'Status',
      reason: 'BadRequest',
      message: expect.stringContaining(message),
    });
  });

  it('honours resourceVersionMatch on lists: NotOlderThan is met, Exact only at the current version', async () => {
    const server = await start();
    await sendJson(server, 'POST', NETWORKS, aNetwork('listed'));
    const current = (await json<{ metadata: { resourceVersion: string } }>(await server.request(NETWORKS)))
      .metadata.resourceVersion;
    const notOlder = await server.request(`${NETWORKS}?resourceVersion=1&resourceVersionMatch=NotOlderThan`);
    expect(notOlder.status).toBe(200);
    expect((await json<{ items: unknown[] }>(notOlder)).items).toHaveLength(1);
    expect(
      (await server.request(`${NETWORKS}?resourceVersion=${current}&resourceVersionMatch=Exact`)).status,
    ).toBe(200);
    await sendJson(server, 'POST', NETWORKS, aNetwork('later'));
    const stale = await server.request(`${NETWORKS}?resourceVersion=${current}&resourceVersionMatch=Exact`);
    expect(stale.status).toBe(410);
    expect(await json(stale)).toMatchObject({ reason: 'Expired', code: 410 });
  });

  it.each([
    [
      'without a resourceVersion',
      'resourceVersionMatch=NotOlderThan',
      'forbidden unless resourceVersion is provided',
    ],
    ['of an unknown value', 'resourceVersion=1&resourceVersionMatch=Newest', 'Unsupported value: "Newest"'],
  ])('refuses a resourceVersionMatch %s with a 400', async (_case, query, message) => {
    const server = await start();
    const response = await server.request(`${NETWORKS}?${query}`);
    expect(response.status).toBe(400);
    expect((await json(response)).message).toContain(message);
  });
});
