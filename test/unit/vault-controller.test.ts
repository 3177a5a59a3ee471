import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControllerRunner } from '../../controllers/runtime/controller-runner.js';
import { openEmbeddedStore, type EmbeddedStore } from '../../control-plane/embedded-store/index.js';
import {
  VAULT_DATA_FINALIZER,
  vaultClusterController,
} from '../../controllers/vaultcluster/vaultcluster-controller.js';
import { vaultClusterId } from '../../vault/vault-engine.js';
import { loadKinds } from '../../crds/registry.js';
import { VAULT_CLUSTER, type VaultCluster, type VaultClusterSpec } from '../../crds/vault-cluster.js';
import { createMetrics } from '../../observability/metrics.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { eventually } from '../fixtures/eventually.js';
import type { FakeClock } from '../fixtures/fake-clock.js';
import { openTestVaultEngine, PLATFORM_CALLER, type TestVaultEngine } from '../fixtures/vault-engine.js';

const NAMESPACE = 'org-test';

function vaultCluster(name: string, spec: Partial<VaultClusterSpec> = {}): VaultCluster {
  return {
    apiVersion: 'cloudplane.dev/v1alpha1',
    kind: 'VaultCluster',
    metadata: { name, namespace: NAMESPACE },
    spec: { name, ...spec },
  };
}

describe('VaultCluster controller', () => {
  let dir: string;
  let store: EmbeddedStore;
  let vault: TestVaultEngine;
  let clock: FakeClock;
  let runner: ControllerRunner;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-vault-controller-'));
    store = openEmbeddedStore({ path: path.join(dir, 'store.db'), kinds: loadKinds([VAULT_CLUSTER]) });
    vault = await openTestVaultEngine();
    clock = vault.clock;
    runner = new ControllerRunner({
      store,
      logger: capturedLogger().logger,
      metrics: createMetrics(),
      clock,
    });
    runner.register(
      vaultClusterController({
        engine: vault.engine,
        database: vault.sqlite.database,
        apiAddress: (namespace, name) => `http://vault.test/${namespace}/${name}`,
        refreshIntervalMs: 30_000,
      }),
    );
    await runner.start();
  });
  afterEach(async () => {
    await runner.stop();
    await store.close();
    await vault.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const read = (name: string) => store.get<VaultCluster>(VAULT_CLUSTER, NAMESPACE, name);

  it('initialises an auto-unseal cluster, unseals it and reports running with the finalizer held', async () => {
    await store.create(VAULT_CLUSTER, vaultCluster('auto', { autoUnseal: true }));
    const running = await eventually(async () => {
      const current = await read('auto');
      expect(current.status?.phase).toBe('running');
      return current;
    });
    expect(running.metadata.finalizers).toEqual([VAULT_DATA_FINALIZER]);
    expect(running.status).toMatchObject({
      sealed: false,
      version: '1.0.0',
      apiAddress: 'http://vault.test/org-test/auto',
      totalSecrets: 0,
      storageUsedMb: 0,
      conditions: [{ type: 'Ready', status: 'True', reason: 'Unsealed', observedGeneration: 1 }],
    });
    const samples = await vault.sqlite.database.kysely
      .selectFrom('usage_samples')
      .select(['meter', 'resource_type', 'resource_id', 'quantity'])
      .where('resource_id', '=', 'auto')
      .execute();
    expect(samples).toEqual([
      { meter: 'vault.secret_hours', resource_type: 'vault_cluster', resource_id: 'auto', quantity: 0 },
    ]);
  });

  it('leaves a kubectl-applied Shamir cluster uninitialised and sealed, saying to use the REST API', async () => {
    await store.create(VAULT_CLUSTER, vaultCluster('manual'));
    const sealed = await eventually(async () => {
      const current = await read('manual');
      expect(current.status?.phase).toBe('sealed');
      return current;
    });
    expect(sealed.status?.conditions?.[0]).toMatchObject({ status: 'False', reason: 'NotInitialized' });
    expect(sealed.status?.conditions?.[0]?.message).toContain('POST /api/v1/vault');
    expect(await vault.engine.isInitialized(vaultClusterId(NAMESPACE, 'manual'))).toBe(false);
  });

  it('reports sealed for an initialised Shamir cluster and running once unsealed and refreshed', async () => {
    const keys = await vault.engine.initialize(vaultClusterId(NAMESPACE, 'shamir'), {
      shares: 3,
      threshold: 2,
      autoUnseal: false,
    });
    await store.create(VAULT_CLUSTER, vaultCluster('shamir', { shares: 3, threshold: 2 }));
    await eventually(async () =>
      expect((await read('shamir')).status?.conditions?.[0]?.reason).toBe('Sealed'),
    );
    const cluster = vault.engine.forCluster(vaultClusterId(NAMESPACE, 'shamir'));
    for (const key of keys.slice(0, 2)) await cluster.unseal(PLATFORM_CALLER, key);
    await cluster.perform(
      PLATFORM_CALLER,
      { operation: 'UPDATE', path: 'secret/data/a', successStatus: 200 },
      (ops) => ops.kv.write('a', { v: 1 }),
    );
    await clock.advance(30_000);
    await eventually(async () =>
      expect((await read('shamir')).status).toMatchObject({
        phase: 'running',
        totalSecrets: 1,
        storageUsedMb: 1,
      }),
    );
  });

  it('moves to the error phase with a reason for an impossible spec', async () => {
    await store.create(VAULT_CLUSTER, vaultCluster('broken', { shares: 2, threshold: 3, autoUnseal: true }));
    const broken = await eventually(async () => {
      const current = await read('broken');
      expect(current.status?.phase).toBe('error');
      return current;
    });
    expect(broken.status?.conditions?.[0]).toMatchObject({ reason: 'InvalidSpec', status: 'False' });
    expect(broken.status?.conditions?.[0]?.message).toContain('must not exceed spec.shares');
  });

  it('destroys the data-plane records before letting a deleted cluster go', async () => {
    await store.create(VAULT_CLUSTER, vaultCluster('doomed', { autoUnseal: true }));
    await eventually(async () => expect((await read('doomed')).status?.phase).toBe('running'));
    await store.delete(VAULT_CLUSTER, NAMESPACE, 'doomed');
    await eventually(async () => {
      await expect(read('doomed')).rejects.toMatchObject({ reason: 'NotFound' });
    });
    expect(await vault.engine.isInitialized(vaultClusterId(NAMESPACE, 'doomed'))).toBe(false);
  });
});
