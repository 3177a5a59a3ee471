/**
 * The workload contract against a real cluster with CloudNativePG installed. It runs only when
 * CLOUDPLANE_TEST_KUBECONFIG names the cluster, from a place where its Service names resolve
 * (a pod in it, or a runner on its network): the clients connect to the endpoints reported.
 * CLOUDPLANE_TEST_KUBE_NAMESPACE (default `cloudplane-contract`) and `<it>-other` must exist.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { describe } from 'vitest';
import { openKubernetesStore } from '../../control-plane/kubernetes-store/index.js';
import type { ObjectStore } from '../../control-plane/types.js';
import { createKubernetesRuntime, KUBERNETES_WORKLOAD_KINDS } from '../../workloads/kubernetes/index.js';
import { JOB, POD } from '../../workloads/kubernetes/resource-types.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { redisClient } from '../fixtures/workload-redis-client.js';
import { mysqlClient, postgresqlClient } from '../fixtures/workload-sql-clients.js';
import { describeDatabaseRuntimeContract, describeShareRuntimeContract } from './workloads.contract.js';

const kubeconfig = process.env.CLOUDPLANE_TEST_KUBECONFIG;
const namespace = process.env.CLOUDPLANE_TEST_KUBE_NAMESPACE ?? 'cloudplane-contract';
if (!kubeconfig)
  console.warn('SKIPPING the kubernetes workload contract: CLOUDPLANE_TEST_KUBECONFIG is not set');

function openStore(): ObjectStore {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfig!);
  return openKubernetesStore({
    kubeConfig,
    kinds: [...KUBERNETES_WORKLOAD_KINDS],
    logger: capturedLogger().logger,
  });
}

function runtimeOn(store: ObjectStore) {
  return createKubernetesRuntime({
    store,
    logger: capturedLogger().logger,
    readyWaitMs: 5 * 60_000,
    ...(process.env.CLOUDPLANE_TEST_KUBE_RWX_STORAGE_CLASS
      ? { storageClass: process.env.CLOUDPLANE_TEST_KUBE_RWX_STORAGE_CLASS }
      : {}),
  });
}

/** Runs a shell script in a busybox pod that mounts the share's claim, and answers its output. */
async function inShare(store: ObjectStore, claim: string, script: string): Promise<string> {
  const name = `probe-${Date.now().toString(36)}`;
  await store.create(JOB, {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace },
    spec: {
      backoffLimit: 0,
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'probe',
              image: 'busybox:1.36',
              command: ['sh', '-euc', `${script} > /dev/termination-log`],
              volumeMounts: [{ name: 'share', mountPath: '/share' }],
            },
          ],
          volumes: [{ name: 'share', persistentVolumeClaim: { claimName: claim } }],
        },
      },
    },
  });
  const deadline = Date.now() + 5 * 60_000;
  try {
    while (Date.now() < deadline) {
      const job = await store.get<{
        apiVersion: string;
        kind: string;
        metadata: { name: string };
        status?: { succeeded?: number; failed?: number };
      }>(JOB, namespace, name);
      if (job.status?.failed) throw new Error(`probe ${name} failed`);
      if (job.status?.succeeded) {
        const pods = await store.list(POD, { namespace, labelSelector: `job-name=${name}` });
        const status = pods.items[0]?.status as {
          containerStatuses?: { state?: { terminated?: { message?: string } } }[];
        };
        return status.containerStatuses?.[0]?.state?.terminated?.message ?? '';
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    throw new Error(`probe ${name} did not finish`);
  } finally {
    await store.delete(JOB, namespace, name, { propagationPolicy: 'Background' }).catch(() => undefined);
  }
}

describe.skipIf(!kubeconfig)('the kubernetes runtime in a cluster', () => {
  const clients = { postgresql: postgresqlClient, mysql: mysqlClient, redis: redisClient } as const;
  for (const [engine, client] of Object.entries(clients) as [
    keyof typeof clients,
    (typeof clients)[keyof typeof clients],
  ][]) {
    describeDatabaseRuntimeContract(
      'kubernetes',
      engine,
      async () => {
        const store = openStore();
        return { runtime: runtimeOn(store), client, organization: namespace, cleanup: () => store.close() };
      },
      { timeoutMs: 15 * 60_000 },
    );
  }

  describeShareRuntimeContract('kubernetes', async () => {
    const store = openStore();
    return {
      runtime: runtimeOn(store),
      organization: namespace,
      fill: async (claim, file, bytes) => {
        await inShare(store, claim, `head -c ${bytes} /dev/zero > /share/${file}`);
      },
      files: async (claim) =>
        (await inShare(store, claim, 'ls /share | tr "\\n" " "')).split(' ').filter(Boolean).sort(),
      cleanup: () => store.close(),
    };
  });
});
