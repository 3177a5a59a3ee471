import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControllerRunner } from '../../controllers/runtime/controller-runner.js';
import { vaultClusterController } from '../../controllers/vaultcluster/vaultcluster-controller.js';
import { vaultClusterId } from '../../vault/vault-engine.js';
import { loadKinds } from '../../crds/registry.js';
import { VAULT_CLUSTER, type VaultCluster } from '../../crds/vault-cluster.js';
import { createLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';
import { eventually } from '../fixtures/eventually.js';
import { Kubectl, KUBECTL } from '../fixtures/kube-kubectl.js';
import { startKubeServer, type KubeServer } from '../fixtures/kube-server.js';
import { openTestVaultEngine, type TestVaultEngine } from '../fixtures/vault-engine.js';

const available = fs.existsSync(KUBECTL);
if (!available)
  console.warn(`SKIPPING the kubectl VaultCluster suite: ${KUBECTL} is missing; run npm run tools`);

function manifest(name: string, autoUnseal: boolean): string {
  return [
    'apiVersion: cloudplane.dev/v1alpha1',
    'kind: VaultCluster',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    `  name: ${name} secrets`,
    `  autoUnseal: ${autoUnseal}`,
    '  settings:',
    '    defaultLeaseTtlSeconds: 3600',
    '',
  ].join('\n');
}

describe.skipIf(!available)('kubectl with VaultClusters', () => {
  let server: KubeServer;
  let vault: TestVaultEngine;
  let runner: ControllerRunner;
  let kubectl: Kubectl;

  beforeAll(async () => {
    server = await startKubeServer({ kinds: loadKinds([VAULT_CLUSTER]) });
    vault = await openTestVaultEngine();
    runner = new ControllerRunner({
      store: server.store,
      logger: createLogger('silent'),
      metrics: createMetrics(),
    });
    runner.register(
      vaultClusterController({
        engine: vault.engine,
        database: vault.sqlite.database,
        apiAddress: (namespace, name) => `https://vault.test/${namespace}/${name}`,
      }),
    );
    await runner.start();
    kubectl = new Kubectl(server);
  });
  afterAll(async () => {
    await runner?.stop();
    await server?.close();
    await vault?.dispose();
    kubectl?.cleanup();
  });

  it('applies an auto-unseal cluster, waits for Ready, shows the printer columns and deletes it with its data', async () => {
    const file = kubectl.manifest('vault.yaml', manifest('team-vault', true));
    expect(await kubectl.ok('apply', '-f', file)).toBe('vaultcluster.cloudplane.dev/team-vault created\n');
    expect(
      await kubectl.ok('wait', '--for=condition=Ready', 'vaultcluster/team-vault', '--timeout=30s'),
    ).toBe('vaultcluster.cloudplane.dev/team-vault condition met\n');
    const lines = (await kubectl.ok('get', 'vaultclusters')).trimEnd().split('\n');
    expect(lines[0]?.split(/\s{2,}/)).toEqual([
      'NAME',
      'DISPLAY NAME',
      'PHASE',
      'REASON',
      'SEALED',
      'SECRETS',
      'AGE',
    ]);
    expect(lines[1]).toMatch(/^team-vault\s+team-vault secrets\s+running\s+Unsealed\s+false\s+0\s+\d+s$/);
    const wide = (await kubectl.ok('get', 'vc', 'team-vault', '-o', 'wide')).split('\n');
    expect(wide[0]?.split(/\s{2,}/)).toEqual([
      'NAME',
      'DISPLAY NAME',
      'PHASE',
      'REASON',
      'SEALED',
      'SECRETS',
      'AUTO UNSEAL',
      'ADDRESS',
      'MESSAGE',
      'AGE',
    ]);
    expect(wide[1]).toContain('https://vault.test/default/team-vault');

    const id = vaultClusterId('default', 'team-vault');
    expect(await vault.engine.isInitialized(id)).toBe(true);
    expect(await kubectl.ok('delete', 'vaultcluster', 'team-vault', '--timeout=30s')).toBe(
      'vaultcluster.cloudplane.dev "team-vault" deleted\n',
    );
    expect(await vault.engine.isInitialized(id)).toBe(false);
  });

  it('reports a Shamir cluster applied with kubectl as sealed, telling to use the REST API', async () => {
    await kubectl.ok('apply', '-f', kubectl.manifest('shamir.yaml', manifest('shamir-vault', false)));
    const cluster = await eventually(async () => {
      const current = await server.store.get<VaultCluster>(VAULT_CLUSTER, 'default', 'shamir-vault');
      expect(current.status?.phase).toBe('sealed');
      return current;
    });
    expect(cluster.status?.conditions?.[0]).toMatchObject({
      type: 'Ready',
      status: 'False',
      reason: 'NotInitialized',
    });
    const yaml = await kubectl.ok('get', 'vaultcluster', 'shamir-vault', '-o', 'yaml');
    expect(yaml).toContain('POST /api/v1/vault');
  });
});
