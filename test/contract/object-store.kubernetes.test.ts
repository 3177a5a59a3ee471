import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { EVENT_KIND, NAMESPACE_KIND } from '../../control-plane/built-in-kinds.js';
import {
  openKubernetesStore,
  type KubernetesStoreOptions,
} from '../../control-plane/kubernetes-store/index.js';
import { isStoreError, type KubeObject, type ObjectStore } from '../../control-plane/types.js';
import type { KindDescriptor } from '../../control-plane/kind-descriptor.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { eventually } from '../fixtures/eventually.js';
import { loadKubeConfig, startEmbeddedKubernetesApi } from '../fixtures/kube-backend-embedded-api.js';
import { freePort } from '../fixtures/free-port.js';
import {
  kubeConfigFor,
  startScriptedApi,
  status,
  TOKEN,
  type ScriptedApi,
} from '../fixtures/kube-backend-scripted-api.js';
import { anObject, gadgetKind, plateKind, widgetKind, type Widget } from '../fixtures/store-kinds.js';
import { WatchReader } from '../fixtures/store-watch.js';
import { describeObjectStoreContract } from './object-store.contract.js';

const KINDS = [widgetKind, gadgetKind, plateKind];
const NAMESPACE = 'store-test';

describeObjectStoreContract('Kubernetes API (the embedded control plane over HTTP)', async () => {
  const api = await startEmbeddedKubernetesApi(KINDS);
  const store = openKubernetesStore({
    kubeConfig: loadKubeConfig(api.kubeconfigPath),
    kinds: [...KINDS, EVENT_KIND],
    logger: capturedLogger().logger,
  });
  return {
    store,
    type: widgetKind,
    otherType: gadgetKind,
    namespace: NAMESPACE,
    async cleanup() {
      await store.close();
      await api.close();
    },
  };
});

const CLUSTER_KUBECONFIG = process.env.CLOUDPLANE_TEST_KUBECONFIG || undefined;
if (CLUSTER_KUBECONFIG === undefined) {
  console.warn(
    'CLOUDPLANE_TEST_KUBECONFIG is not set: the object-store contract against a real cluster is skipped',
  );
}

const CRD_KIND: KindDescriptor = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  namespaced: false,
  shortNames: [],
  categories: [],
  printerColumns: [],
  typesFile: 'test/contract/object-store.kubernetes.test.ts',
};

/**
 * The fixture kind as a CRD carrying the very schema the embedded store validates with, so both
 * backends refuse the same objects. (The CRD generator reads `<Kind>Spec` types, which the
 * fixture kinds share and which carry none of the contract's constraints.)
 */
function fixtureCrd(kind: KindDescriptor): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${kind.plural}.${kind.group}` },
    spec: {
      group: kind.group,
      scope: kind.namespaced ? 'Namespaced' : 'Cluster',
      names: { kind: kind.kind, listKind: `${kind.kind}List`, plural: kind.plural, singular: kind.singular },
      versions: [
        {
          name: kind.version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: kind.schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      ],
    },
  };
}

async function applyFixtureCrds(admin: ObjectStore): Promise<void> {
  for (const kind of KINDS) {
    const crd = fixtureCrd(kind);
    try {
      await admin.create(CRD_KIND, crd);
    } catch (error) {
      if (!isStoreError(error, 'AlreadyExists')) throw error;
      const current = await admin.get(CRD_KIND, undefined, crd.metadata.name);
      await admin.update(CRD_KIND, { ...current, spec: crd.spec });
    }
    await eventually(async () => {
      const current = await admin.get<
        KubeObject<unknown, { conditions?: { type: string; status: string }[] }>
      >(CRD_KIND, undefined, crd.metadata.name);
      expect(current.status?.conditions).toContainEqual(
        expect.objectContaining({ type: 'Established', status: 'True' }),
      );
    }, 60_000);
  }
}

describe.skipIf(CLUSTER_KUBECONFIG === undefined)(
  'against the cluster CLOUDPLANE_TEST_KUBECONFIG names',
  () => {
    describeObjectStoreContract('Kubernetes API (a real cluster)', async () => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(CLUSTER_KUBECONFIG ?? '');
      const logger = capturedLogger().logger;
      const admin = openKubernetesStore({ kubeConfig, kinds: [CRD_KIND, NAMESPACE_KIND], logger });
      await applyFixtureCrds(admin);
      const namespace = `cp-store-${randomBytes(4).toString('hex')}`;
      await admin.create(NAMESPACE_KIND, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: namespace },
      });
      const store = openKubernetesStore({ kubeConfig, kinds: [...KINDS, EVENT_KIND], logger });
      await eventually(() => store.list(widgetKind, { namespace, limit: 1 }), 60_000);
      return {
        store,
        type: widgetKind,
        otherType: gadgetKind,
        namespace,
        async cleanup() {
          await store.close();
          await admin.delete(NAMESPACE_KIND, undefined, namespace);
          await admin.close();
        },
      };
    });
  },
);

describe('the Kubernetes store on the wire', () => {
  let api: ScriptedApi;
  let store: ObjectStore;
  let delays: number[];
  const opened: ObjectStore[] = [];
  const started: ScriptedApi[] = [];

  function open(server: string, options: Partial<KubernetesStoreOptions> = {}): ObjectStore {
    const opening = openKubernetesStore({
      kubeConfig: kubeConfigFor(server),
      kinds: KINDS,
      logger: capturedLogger().logger,
      retry: { attempts: 4, baseDelayMs: 100, maxDelayMs: 250, delay: async (ms) => void delays.push(ms) },
      ...options,
    });
    opened.push(opening);
    return opening;
  }

  beforeEach(async () => {
    delays = [];
    api = await startScriptedApi();
    started.push(api);
    store = open(api.url);
  });

  afterEach(async () => {
    for (const each of opened.splice(0)) await each.close();
    for (const each of started.splice(0)) await each.close();
  });

  const widget = (name: string, shape: Parameters<typeof anObject>[2] = {}): Widget =>
    anObject(widgetKind, name, { namespace: NAMESPACE, ...shape });
  const collection = `/apis/test.cloudplane.dev/v1/namespaces/${NAMESPACE}/widgets`;

  describe('requests', () => {
    it.each<[string, (store: ObjectStore) => Promise<unknown>, string, string, string | undefined]>([
      ['get', (s) => s.get(widgetKind, NAMESPACE, 'a'), 'GET', `${collection}/a`, undefined],
      [
        'list with selector, limit and continue',
        (s) =>
          s.list(widgetKind, {
            namespace: NAMESPACE,
            labelSelector: 'tier in (gold)',
            limit: 2,
            continue: 'tok',
          }),
        'GET',
        `${collection}?labelSelector=tier+in+%28gold%29&limit=2&continue=tok`,
        undefined,
      ],
      [
        'list across namespaces',
        (s) => s.list(widgetKind),
        'GET',
        '/apis/test.cloudplane.dev/v1/widgets',
        undefined,
      ],
      [
        'create as a dry run',
        (s) => s.create(widgetKind, widget('a'), { dryRun: true }),
        'POST',
        `${collection}?dryRun=All`,
        'application/json',
      ],
      ['update', (s) => s.update(widgetKind, widget('a')), 'PUT', `${collection}/a`, 'application/json'],
      [
        'updateStatus',
        (s) => s.updateStatus(widgetKind, widget('a')),
        'PUT',
        `${collection}/a/status`,
        'application/json',
      ],
      [
        'patch of the status',
        (s) => s.patch(widgetKind, NAMESPACE, 'a', { status: { phase: 'Ready' } }, { subresource: 'status' }),
        'PATCH',
        `${collection}/a/status`,
        'application/merge-patch+json',
      ],
      [
        'get of a cluster-scoped kind',
        (s) => s.get(plateKind, undefined, 'p'),
        'GET',
        '/apis/test.cloudplane.dev/v1/plates/p',
        undefined,
      ],
      ['ping', (s) => s.ping(), 'GET', '/version', undefined],
    ])(
      'sends %s as kubectl would, with the kubeconfig token',
      async (_case, call, method, url, contentType) => {
        api.script({ body: { ...widget('a'), items: [], metadata: { name: 'a', resourceVersion: '7' } } });
        await call(store);
        expect(api.requests).toHaveLength(1);
        expect(api.requests[0]).toMatchObject({ method, url, headers: { authorization: `Bearer ${TOKEN}` } });
        expect(api.requests[0]?.headers['content-type']).toBe(contentType);
      },
    );

    it('fills in apiVersion and kind on list items that arrive without them', async () => {
      api.script({
        body: { items: [{ metadata: { name: 'a' } }], metadata: { resourceVersion: '9', continue: 'next' } },
      });
      const list = await store.list(widgetKind, { namespace: NAMESPACE });
      expect(list).toEqual({
        items: [{ apiVersion: 'test.cloudplane.dev/v1', kind: 'Widget', metadata: { name: 'a' } }],
        resourceVersion: '9',
        continue: 'next',
      });
    });

    it('deletes with DeleteOptions in the body, on the condition of the uid it read', async () => {
      const existing = widget('a');
      existing.metadata.uid = 'uid-1';
      const marked = {
        ...existing,
        metadata: { ...existing.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
      };
      api.script({ body: existing }, { body: marked });
      const answered = await store.delete(widgetKind, NAMESPACE, 'a', {
        propagationPolicy: 'Foreground',
        dryRun: true,
      });
      expect(answered).toEqual(marked);
      expect(api.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
        `GET ${collection}/a`,
        `DELETE ${collection}/a`,
      ]);
      expect(JSON.parse(api.requests[1]?.body ?? '')).toEqual({
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        preconditions: { uid: 'uid-1' },
        propagationPolicy: 'Foreground',
        dryRun: ['All'],
      });
    });

    it('answers the object as read when the apiserver answers a removal with a Status', async () => {
      const existing = widget('a');
      existing.metadata.uid = 'uid-1';
      existing.metadata.resourceVersion = '12';
      api.script(
        { body: existing },
        {
          body: { kind: 'Status', apiVersion: 'v1', status: 'Success', details: { name: 'a', uid: 'uid-1' } },
        },
      );
      expect(await store.delete(widgetKind, NAMESPACE, 'a')).toEqual(existing);
      expect(JSON.parse(api.requests[1]?.body ?? '')).toMatchObject({ preconditions: { uid: 'uid-1' } });
    });

    it('deletes the new object when the name was taken over between the read and the delete', async () => {
      const first = widget('a');
      first.metadata.uid = 'uid-1';
      const second = widget('a');
      second.metadata.uid = 'uid-2';
      const success = { kind: 'Status', apiVersion: 'v1', status: 'Success', details: { name: 'a' } };
      api.script(
        { body: first },
        {
          status: 409,
          body: status(
            409,
            'Conflict',
            'Precondition failed: UID in precondition: uid-1, UID in object meta: uid-2',
          ),
        },
        { body: second },
        { body: success },
      );
      expect((await store.delete(widgetKind, NAMESPACE, 'a')).metadata.uid).toBe('uid-2');
    });

    it('refuses a kind it was not opened with, without a request', async () => {
      const other = { ...widgetKind, plural: 'sprockets', kind: 'Sprocket' };
      await expect(store.get(other, NAMESPACE, 'a')).rejects.toMatchObject({
        reason: 'NotFound',
        message: 'the server could not find the requested resource',
      });
      expect(api.requests).toHaveLength(0);
    });
  });

  describe('refusals', () => {
    it.each([
      [
        'a 422 Invalid with its causes',
        {
          status: 422,
          body: status(
            422,
            'Invalid',
            'Widget.test.cloudplane.dev "a" is invalid: spec.size: Invalid value: -1',
            {
              name: 'a',
              kind: 'Widget',
              causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: -1', field: 'spec.size' }],
            },
          ),
        },
        {
          reason: 'Invalid',
          code: 422,
          details: {
            name: 'a',
            kind: 'Widget',
            causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: -1', field: 'spec.size' }],
          },
        },
      ],
      [
        'a 409 AlreadyExists',
        { status: 409, body: status(409, 'AlreadyExists', 'widgets.test.cloudplane.dev "a" already exists') },
        { reason: 'AlreadyExists', code: 409, message: 'widgets.test.cloudplane.dev "a" already exists' },
      ],
      [
        'a 405 MethodNotAllowed, as the nearest reason by code',
        { status: 405, body: status(405, 'MethodNotAllowed', 'the server does not allow this method') },
        { reason: 'BadRequest', message: 'the server does not allow this method' },
      ],
      [
        'a 401 without a Status body',
        { status: 401, body: 'Unauthorized' },
        {
          reason: 'Unauthorized',
          code: 401,
          message: 'the Kubernetes API answered 401 Unauthorized: Unauthorized',
        },
      ],
    ])('turns %s into a StoreError carrying what the Status says', async (_case, answer, expected) => {
      api.script(answer);
      await expect(store.create(widgetKind, widget('a'))).rejects.toMatchObject(expected);
    });
  });

  describe('retries', () => {
    it('retries a 429 after the Retry-After the apiserver asks for, within the cap', async () => {
      api.script(
        { status: 429, headers: { 'Retry-After': '0' }, body: status(429, 'TooManyRequests', 'slow down') },
        { status: 429, headers: { 'Retry-After': '5' }, body: status(429, 'TooManyRequests', 'slow down') },
        { body: widget('a') },
      );
      await expect(store.get(widgetKind, NAMESPACE, 'a')).resolves.toMatchObject({ metadata: { name: 'a' } });
      expect(delays).toEqual([0, 250]);
    });

    it('retries 5xx with exponential backoff, and gives up after the attempts with the last Status', async () => {
      const unavailable = { status: 503, body: status(503, 'ServiceUnavailable', 'etcd is not ready') };
      api.script(unavailable, unavailable, unavailable, unavailable);
      await expect(store.patch(widgetKind, NAMESPACE, 'a', { spec: { size: 1 } })).rejects.toMatchObject({
        reason: 'ServiceUnavailable',
        code: 503,
        message: 'etcd is not ready',
      });
      expect(api.requests).toHaveLength(4);
      expect(delays).toEqual([100, 200, 250]);
    });

    it('never sends a create twice once it reached the server', async () => {
      api.script({ status: 503, body: status(503, 'ServiceUnavailable', 'try later') }, { cut: true });
      await expect(store.create(widgetKind, widget('a'))).rejects.toMatchObject({
        reason: 'ServiceUnavailable',
      });
      await expect(store.create(widgetKind, widget('b'))).rejects.toMatchObject({
        reason: 'ServiceUnavailable',
        message: expect.stringContaining('cannot reach the Kubernetes API'),
      });
      expect(api.requests).toHaveLength(2);
      expect(delays).toEqual([]);
    });

    it('retries a read whose connection broke', async () => {
      api.script({ cut: true }, { body: widget('a') });
      await expect(store.get(widgetKind, NAMESPACE, 'a')).resolves.toMatchObject({ metadata: { name: 'a' } });
      expect(api.requests).toHaveLength(2);
    });

    it('retries a create whose connection was refused, as it was never sent', async () => {
      const port = await freePort();
      let late: ScriptedApi | undefined;
      const refusing = open(`http://127.0.0.1:${port}`, {
        retry: {
          attempts: 3,
          delay: async (ms) => {
            delays.push(ms);
            late = await startScriptedApi(port);
            started.push(late);
            late.script({ status: 201, body: widget('a') });
          },
        },
      });
      await expect(refusing.create(widgetKind, widget('a'))).resolves.toMatchObject({
        metadata: { name: 'a' },
      });
      expect(delays).toHaveLength(1);
      expect(late?.requests.map((request) => request.method)).toEqual(['POST']);
    });

    it('answers ServiceUnavailable naming the server when nothing listens', async () => {
      const port = await freePort();
      const nowhere = open(`http://127.0.0.1:${port}`);
      await expect(nowhere.get(widgetKind, NAMESPACE, 'a')).rejects.toMatchObject({
        reason: 'ServiceUnavailable',
        message: expect.stringContaining(`cannot reach the Kubernetes API at http://127.0.0.1:${port}`),
      });
      expect(delays).toHaveLength(3);
    });
  });

  describe('watch', () => {
    const added = (name: string, resourceVersion: string) => ({
      type: 'ADDED',
      object: { ...widget(name), metadata: { name, namespace: NAMESPACE, resourceVersion } },
    });

    it('asks for the stream from the revision given, with bookmarks and a server-side timeout', async () => {
      api.script({ lines: [added('a', '5')] });
      const watch = new WatchReader(
        store.watch(widgetKind, {
          namespace: NAMESPACE,
          resourceVersion: '4',
          labelSelector: 'run=x',
          allowBookmarks: true,
        }),
      );
      await watch.next();
      const url = new URL(api.requests[0]?.url ?? '', api.url);
      expect(url.pathname).toBe(collection);
      expect(Object.fromEntries(url.searchParams)).toMatchObject({
        watch: '1',
        resourceVersion: '4',
        labelSelector: 'run=x',
        allowWatchBookmarks: 'true',
      });
      expect(Number(url.searchParams.get('timeoutSeconds'))).toBeGreaterThanOrEqual(300);
      watch.stop();
    });

    it('without a revision lists one item and watches from the list’s revision: changes from now on', async () => {
      api.script({ body: { items: [], metadata: { resourceVersion: '42' } } }, { lines: [added('a', '43')] });
      const watch = new WatchReader(store.watch(widgetKind, { namespace: NAMESPACE }));
      await watch.next();
      watch.stop();
      expect(api.requests.map((request) => request.url)).toEqual([
        `${collection}?limit=1`,
        expect.stringMatching(
          /^\/apis\/test\.cloudplane\.dev\/v1\/namespaces\/store-test\/widgets\?watch=1&resourceVersion=42&/,
        ),
      ]);
    });

    it('delivers events and bookmarks in order, then ends cleanly when the server closes the stream', async () => {
      const bookmark = {
        type: 'BOOKMARK',
        object: { kind: 'Widget', apiVersion: 'test.cloudplane.dev/v1', metadata: { resourceVersion: '8' } },
      };
      api.script({ lines: [added('a', '6'), bookmark, { type: 'DELETED', object: widget('a') }] });
      const watch = new WatchReader(store.watch(widgetKind, { namespace: NAMESPACE, resourceVersion: '5' }));
      expect((await watch.next()).type).toBe('ADDED');
      expect(await watch.next()).toEqual(bookmark);
      expect((await watch.next()).type).toBe('DELETED');
      await expect(watch.end()).resolves.toMatchObject({ done: true });
    });

    it('ends with Expired after the events before an ERROR event of code 410', async () => {
      const expired = { type: 'ERROR', object: status(410, 'Gone', 'too old resource version: 1 (40)') };
      api.script({ lines: [added('a', '41'), expired], hold: true });
      const watch = new WatchReader(store.watch(widgetKind, { namespace: NAMESPACE, resourceVersion: '1' }));
      expect((await watch.next()).type).toBe('ADDED');
      await expect(watch.next()).rejects.toMatchObject({
        reason: 'Expired',
        code: 410,
        message: 'too old resource version: 1 (40)',
      });
      await expect(watch.end()).resolves.toMatchObject({ done: true });
    });

    it('fails the first step with the Status of a refused watch', async () => {
      api.script({
        status: 403,
        body: status(403, 'Forbidden', 'widgets is forbidden: User "x" cannot watch'),
      });
      const watch = new WatchReader(store.watch(widgetKind, { namespace: NAMESPACE, resourceVersion: '1' }));
      await expect(watch.next()).rejects.toMatchObject({ reason: 'Forbidden', code: 403 });
    });

    it('stop() ends the iteration and closes the connection', async () => {
      api.script({ lines: [], hold: true });
      const watch = new WatchReader(store.watch(widgetKind, { namespace: NAMESPACE, resourceVersion: '1' }));
      const ended = watch.end();
      await eventually(() => expect(api.requests).toHaveLength(1));
      watch.stop();
      await expect(ended).resolves.toMatchObject({ done: true });
      await api.requests[0]?.closed;
    });

    it('close() stops every open watch and refuses further requests', async () => {
      api.script({ lines: [], hold: true });
      const watch = new WatchReader(store.watch(widgetKind, { namespace: NAMESPACE, resourceVersion: '1' }));
      const ended = watch.end();
      await eventually(() => expect(api.requests).toHaveLength(1));
      await store.close();
      await expect(ended).resolves.toMatchObject({ done: true });
      await expect(store.get(widgetKind, NAMESPACE, 'a')).rejects.toMatchObject({
        reason: 'ServiceUnavailable',
        message: 'the object store is closed',
      });
    });
  });
});
