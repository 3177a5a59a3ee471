import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LEASE_KIND } from '../../control-plane/built-in-kinds.js';
import { OPERATOR_LEASE_NAME } from '../../cli/operator.js';
import type { Lease } from '../../controllers/runtime/leader-election.js';
import { describeWithPostgres } from '../fixtures/db-postgres.js';
import { eventually } from '../fixtures/eventually.js';
import { useClusterMode } from '../fixtures/cluster-mode.js';
import { CloudplaneProcess } from '../fixtures/kube-backend-process.js';

const LEASE_NAMESPACE = 'cloudplane-system';
const STARTUP_MS = 60_000;

describe('cloudplane operator without a database', () => {
  it('refuses to start in cluster mode, naming DATABASE_URL in one line', async () => {
    const operator = new CloudplaneProcess(['operator'], { CLOUDPLANE_LOG_LEVEL: 'silent' });
    expect(await operator.exited).toBe(2);
    expect(operator.stderr).toBe(
      'cloudplane: invalid configuration: DATABASE_URL: expected a postgres:// URL in cluster mode, got ""\n',
    );
  });
});

describeWithPostgres('cluster-mode processes against the embedded Kubernetes API', () => {
  const cluster = useClusterMode('cp-operator-');

  // Replicas share the platform key: with PostgreSQL it must come from the environment.
  const platformKey = randomBytes(32).toString('base64');

  function operator(podName: string): CloudplaneProcess {
    const started = new CloudplaneProcess(['operator'], {
      KUBECONFIG: cluster.api.kubeconfigPath,
      DATABASE_URL: cluster.database.url,
      PORT: '0',
      POD_NAME: podName,
      CLOUDPLANE_LEADER_ELECTION_NAMESPACE: LEASE_NAMESPACE,
      CLOUDPLANE_DATA_DIR: cluster.dataDir,
      CLOUDPLANE_LOG_LEVEL: 'info',
      CLOUDPLANE_KMS_KEY: platformKey,
    });
    cluster.track(started);
    return started;
  }

  const holder = async () =>
    (await cluster.api.store.get<Lease>(LEASE_KIND, LEASE_NAMESPACE, OPERATOR_LEASE_NAME)).spec
      ?.holderIdentity;

  it('serves /health and /metrics, holds the lease, and releases it on SIGTERM', async () => {
    const first = operator('operator-0');
    const { url } = await eventually(() => first.logged('cloudplane operator serving'), STARTUP_MS);

    const health = await fetch(`${String(url)}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'healthy', checks: { store: 'ok', database: 'ok' } });
    const metrics = await fetch(`${String(url)}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('http_requests_total');

    await eventually(async () => expect(await holder()).toBe('operator-0'), STARTUP_MS);

    first.signal('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(await holder()).toBeUndefined();
    expect(await eventually(() => first.logged('released the lease'))).toMatchObject({
      identity: 'operator-0',
    });
  });

  it('keeps a second replica standing by until the leader stops, then hands the lease over', async () => {
    const first = operator('operator-0');
    await eventually(async () => expect(await holder()).toBe('operator-0'), STARTUP_MS);
    const second = operator('operator-1');
    await eventually(() => second.logged('cloudplane operator serving'), STARTUP_MS);
    expect(await holder()).toBe('operator-0');

    first.signal('SIGTERM');
    expect(await first.exited).toBe(0);
    await eventually(async () => expect(await holder()).toBe('operator-1'), STARTUP_MS);
    expect(await eventually(() => second.logged('started leading'))).toMatchObject({
      identity: 'operator-1',
    });
  });

  it('runs the REST facade as `cloudplane apiserver` over the same cluster and database', async () => {
    const apiserver = new CloudplaneProcess(['apiserver'], {
      KUBECONFIG: cluster.api.kubeconfigPath,
      DATABASE_URL: cluster.database.url,
      PORT: '0',
      CLOUDPLANE_DATA_DIR: cluster.dataDir,
      CLOUDPLANE_KMS_KEY: platformKey,
    });
    cluster.track(apiserver);
    const { url } = await eventually(() => apiserver.logged('cloudplane API serving'), STARTUP_MS);
    const health = await fetch(`${String(url)}/health`);
    expect(await health.json()).toMatchObject({ status: 'healthy', checks: { store: 'ok', database: 'ok' } });
    apiserver.signal('SIGTERM');
    expect(await apiserver.exited).toBe(0);
  });
});
