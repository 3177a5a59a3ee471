import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openEmbeddedStore, type EmbeddedStore } from '../../control-plane/embedded-store/index.js';
import type { KubeObject } from '../../control-plane/types.js';
import { createKubernetesRuntime, KUBERNETES_WORKLOAD_KINDS } from '../../workloads/kubernetes/index.js';
import {
  CNPG_CLUSTER,
  JOB,
  PERSISTENT_VOLUME_CLAIM,
  POD,
  SECRET,
  SERVICE,
  STATEFUL_SET,
} from '../../workloads/kubernetes/resource-types.js';
import type { DatabaseWorkload, WorkloadRuntime } from '../../workloads/runtime.js';
import { capturedLogger } from '../fixtures/captured-logger.js';

const NAMESPACE = 'org-acme';
const PASSWORD = 'first-Secret-0123456789';

const postgres: DatabaseWorkload = {
  id: 'db_0123456789ab',
  organization: NAMESPACE,
  engine: 'postgresql',
  storageGb: 1,
};
const redis: DatabaseWorkload = {
  id: 'db_aaaaaaaaaaaa',
  organization: NAMESPACE,
  engine: 'redis',
  memoryMb: 32,
};
const mysql: DatabaseWorkload = {
  id: 'db_bbbbbbbbbbbb',
  organization: NAMESPACE,
  engine: 'mysql',
  storageGb: 1,
};

const decoded = (secret: KubeObject, key: string) =>
  Buffer.from((secret as KubeObject & { data: Record<string, string> }).data[key]!, 'base64').toString(
    'utf8',
  );

describe('the kubernetes runtime on the embedded store, the test playing the operators', () => {
  let store: EmbeddedStore;
  let runtime: WorkloadRuntime;

  beforeEach(() => {
    store = openEmbeddedStore({ path: ':memory:', kinds: [...KUBERNETES_WORKLOAD_KINDS] });
    runtime = createKubernetesRuntime({
      store,
      logger: capturedLogger().logger,
      pollIntervalMs: 5,
      jobTimeoutMs: 2_000,
    });
  });
  afterEach(async () => {
    await store.close();
  });

  /** CloudNativePG's part: the Cluster healthy with the Secret's current version applied. */
  async function cnpgReady(workload: DatabaseWorkload) {
    const name = workload.id.replace('_', '-');
    const secret = await store.get(SECRET, NAMESPACE, `${name}-credentials`);
    const cluster = await store.get(CNPG_CLUSTER, NAMESPACE, name);
    await store.updateStatus(CNPG_CLUSTER, {
      ...cluster,
      status: {
        readyInstances: 1,
        phase: 'Cluster in healthy state',
        image: 'ghcr.io/cloudnative-pg/postgresql:16.4',
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'ClusterIsReady',
            message: '',
            lastTransitionTime: new Date().toISOString(),
          },
        ],
        secretsResourceVersion: { applicationSecretVersion: secret.metadata.resourceVersion },
      },
    });
  }

  /** The StatefulSet controller's part: the pod rolled out and ready. */
  async function statefulSetReady(workload: DatabaseWorkload) {
    const statefulSet = await store.get(STATEFUL_SET, NAMESPACE, workload.id.replace('_', '-'));
    await store.updateStatus(STATEFUL_SET, {
      ...statefulSet,
      status: {
        observedGeneration: statefulSet.metadata.generation ?? 1,
        replicas: 1,
        readyReplicas: 1,
        updatedReplicas: 1,
        currentRevision: 'r1',
        updateRevision: 'r1',
      },
    });
  }

  it('creates a CloudNativePG Cluster in the organization’s namespace, provisioning until it is healthy', async () => {
    const first = await runtime.databases.ensure(postgres, PASSWORD);
    expect(first).toMatchObject({ realization: 'real', state: 'provisioning' });
    const cluster = await store.get(CNPG_CLUSTER, NAMESPACE, 'db-0123456789ab');
    expect(cluster.metadata.labels).toMatchObject({
      'cloudplane.dev/workload': postgres.id,
      'cloudplane.dev/organization': NAMESPACE,
      'app.kubernetes.io/managed-by': 'cloudplane',
    });
    expect(cluster.spec).toMatchObject({
      instances: 1,
      storage: { size: '1Gi' },
      bootstrap: {
        initdb: {
          database: postgres.id,
          owner: postgres.id,
          secret: { name: 'db-0123456789ab-credentials' },
        },
      },
    });
    await cnpgReady(postgres);
    const ready = await runtime.databases.observe(postgres, PASSWORD);
    expect(ready).toMatchObject({ state: 'ready', version: '16.4' });
    expect(ready.access).toMatchObject({
      host: `db-0123456789ab-rw.${NAMESPACE}.svc`,
      port: 5432,
      username: postgres.id,
    });
    expect(ready.access!.connectionString).toContain(encodeURIComponent(PASSWORD));
  });

  it('keeps the password in the Secret only', async () => {
    for (const workload of [postgres, redis, mysql]) await runtime.databases.ensure(workload, PASSWORD);
    const secret = await store.get(SECRET, NAMESPACE, 'db-0123456789ab-credentials');
    expect(decoded(secret, 'password')).toBe(PASSWORD);
    const others = [
      await store.get(CNPG_CLUSTER, NAMESPACE, 'db-0123456789ab'),
      await store.get(STATEFUL_SET, NAMESPACE, 'db-aaaaaaaaaaaa'),
      await store.get(STATEFUL_SET, NAMESPACE, 'db-bbbbbbbbbbbb'),
      await store.get(SERVICE, NAMESPACE, 'db-bbbbbbbbbbbb'),
    ];
    for (const object of others) expect(JSON.stringify(object)).not.toContain(PASSWORD);
  });

  it('rotates through the Secret: provisioning until the server has the new password', async () => {
    await runtime.databases.ensure(redis, PASSWORD);
    await statefulSetReady(redis);
    expect((await runtime.databases.observe(redis, PASSWORD)).state).toBe('ready');
    const rotated = await runtime.databases.ensure(redis, 'second-Secret-9876543210');
    expect(rotated.state).toBe('provisioning');
    const secret = await store.get(SECRET, NAMESPACE, 'db-aaaaaaaaaaaa-credentials');
    expect(decoded(secret, 'password')).toBe('second-Secret-9876543210');
    const statefulSet = await store.get<
      KubeObject<{ template: { metadata: { annotations: Record<string, string> } } }>
    >(STATEFUL_SET, NAMESPACE, 'db-aaaaaaaaaaaa');
    expect(statefulSet.spec!.template.metadata.annotations['cloudplane.dev/credentials-version']).toBe(
      secret.metadata.resourceVersion,
    );
    expect((await runtime.databases.observe(redis, PASSWORD)).state).toBe('degraded');
    await statefulSetReady(redis);
    expect((await runtime.databases.observe(redis, 'second-Secret-9876543210')).state).toBe('ready');
  });

  it('grows storage and memory', async () => {
    await runtime.databases.ensure(postgres, PASSWORD);
    await runtime.databases.ensure({ ...postgres, storageGb: 3 }, PASSWORD);
    expect((await store.get(CNPG_CLUSTER, NAMESPACE, 'db-0123456789ab')).spec).toMatchObject({
      storage: { size: '3Gi' },
    });

    await runtime.databases.ensure(redis, PASSWORD);
    await runtime.databases.ensure({ ...redis, memoryMb: 64 }, PASSWORD);
    const statefulSet = await store.get(STATEFUL_SET, NAMESPACE, 'db-aaaaaaaaaaaa');
    expect(JSON.stringify(statefulSet.spec)).toContain('--maxmemory 64mb');

    await runtime.databases.ensure(mysql, PASSWORD);
    await store.create(PERSISTENT_VOLUME_CLAIM, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data-db-bbbbbbbbbbbb-0', namespace: NAMESPACE },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    await runtime.databases.ensure({ ...mysql, storageGb: 5 }, PASSWORD);
    const claim = await store.get(PERSISTENT_VOLUME_CLAIM, NAMESPACE, 'data-db-bbbbbbbbbbbb-0');
    expect(claim.spec).toMatchObject({ resources: { requests: { storage: '5Gi' } } });
  });

  it('removes every object, and removing twice is fine', async () => {
    await runtime.databases.ensure(postgres, PASSWORD);
    await runtime.databases.ensure(mysql, PASSWORD);
    await runtime.databases.remove(postgres);
    await runtime.databases.remove(mysql);
    await runtime.databases.remove(mysql);
    for (const type of [CNPG_CLUSTER, STATEFUL_SET, SERVICE, SECRET, PERSISTENT_VOLUME_CLAIM]) {
      expect((await store.list(type, { namespace: NAMESPACE })).items).toEqual([]);
    }
    expect((await runtime.databases.observe(postgres, PASSWORD)).state).toBe('degraded');
  });

  it('dumps a database with a Job and reports the size its pod measured', async () => {
    await runtime.databases.ensure(mysql, PASSWORD);
    const completer = completeJobs(store, '4242');
    try {
      const artifact = await runtime.databases.backup(mysql, PASSWORD, 'bkp_0000000000aa');
      expect(artifact.sizeBytes).toBe(4242);
      expect(artifact.location).toContain(`kubernetes-dump://${NAMESPACE}/cloudplane-backups/`);
      await runtime.removeBackup(artifact);
      expect((await store.list(JOB, { namespace: NAMESPACE })).items).toEqual([]);
    } finally {
      completer.stop();
    }
  });
});

/** The Job controller's part: every Job succeeds, its pod reporting `message`. */
function completeJobs(store: EmbeddedStore, message: string): { stop(): void } {
  let running = true;
  const loop = async () => {
    while (running) {
      for (const job of (await store.list(JOB)).items) {
        if (job.status) continue;
        const { name, namespace } = job.metadata;
        await store
          .create(POD, {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: `${name}-pod`, namespace, labels: { 'job-name': name } },
          })
          .catch(() => undefined);
        const pod = await store.get(POD, namespace, `${name}-pod`);
        await store.updateStatus(POD, {
          ...pod,
          status: { containerStatuses: [{ state: { terminated: { message } } }] },
        });
        await store.updateStatus(JOB, { ...job, status: { succeeded: 1 } });
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  void loop();
  return { stop: () => (running = false) };
}
