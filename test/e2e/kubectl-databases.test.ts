import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workloadsConfig } from '../../config/workloads.js';
import { quotasConfig } from '../../config/quotas.js';
import { dataServiceControllers } from '../../controllers/data-services/index.js';
import { ControllerRunner } from '../../controllers/runtime/controller-runner.js';
import { vaultClusterController } from '../../controllers/vaultcluster/vaultcluster-controller.js';
import { DATA_SERVICE_KINDS } from '../../crds/data-services.js';
import { loadKinds } from '../../crds/registry.js';
import { VAULT_CLUSTER } from '../../crds/vault-cluster.js';
import { createLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';
import { vaultClusterId } from '../../vault/vault-engine.js';
import { createLocalRuntime } from '../../workloads/local/index.js';
import type { WorkloadRuntime } from '../../workloads/runtime.js';
import { eventually } from '../fixtures/eventually.js';
import { Kubectl, KUBECTL } from '../fixtures/kube-kubectl.js';
import { startKubeServer, type KubeServer } from '../fixtures/kube-server.js';
import { openTestVaultEngine, PLATFORM_CALLER, type TestVaultEngine } from '../fixtures/vault-engine.js';

const REDIS_SERVER = '/usr/bin/redis-server';
const available = fs.existsSync(KUBECTL) && fs.existsSync(REDIS_SERVER);
if (!available) {
  console.warn(
    `SKIPPING the kubectl Database suite: ${KUBECTL} (npm run tools) or ${REDIS_SERVER} is missing`,
  );
}

const manifest = [
  'apiVersion: cloudplane.dev/v1alpha1',
  'kind: Database',
  'metadata:',
  '  name: sessions',
  'spec:',
  '  name: sessions',
  '  engine: redis',
  '  memoryMb: 32',
  '',
].join('\n');

describe.skipIf(!available)('kubectl with Databases', () => {
  let server: KubeServer;
  let vault: TestVaultEngine;
  let runner: ControllerRunner;
  let runtime: WorkloadRuntime;
  let kubectl: Kubectl;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-kubectl-db-'));
    server = await startKubeServer({ kinds: loadKinds([VAULT_CLUSTER, ...DATA_SERVICE_KINDS]) });
    vault = await openTestVaultEngine();
    const logger = createLogger('silent');
    runtime = createLocalRuntime({
      config: workloadsConfig({ CLOUDPLANE_REDIS_PORTS: '27430-27440' }, { dataDir }),
      logger,
    });
    runner = new ControllerRunner({ store: server.store, logger, metrics: createMetrics() });
    runner.register(
      vaultClusterController({
        engine: vault.engine,
        database: vault.sqlite.database,
        apiAddress: () => 'https://vault.test',
      }),
    );
    for (const controller of dataServiceControllers({
      runtime,
      vault: vault.engine,
      database: vault.sqlite.database,
      quotas: quotasConfig({}),
    })) {
      runner.register(controller);
    }
    await runner.start();
    kubectl = new Kubectl(server);
  }, 30_000);
  afterAll(async () => {
    await runner?.stop();
    await runtime?.close();
    await server?.close();
    await vault?.dispose();
    kubectl?.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('applies a redis Database, waits for Ready, shows its columns, keeps the password in the vault and deletes it', async () => {
    const file = kubectl.manifest('database.yaml', manifest);
    expect(await kubectl.ok('apply', '-f', file)).toBe('database.cloudplane.dev/sessions created\n');
    expect(await kubectl.ok('wait', '--for=condition=Ready', 'database/sessions', '--timeout=60s')).toBe(
      'database.cloudplane.dev/sessions condition met\n',
    );
    const lines = (await kubectl.ok('get', 'databases')).trimEnd().split('\n');
    expect(lines[0]?.split(/\s{2,}/)).toEqual([
      'NAME',
      'DISPLAY NAME',
      'ENGINE',
      'VERSION',
      'PHASE',
      'REASON',
      'REALIZATION',
      'AGE',
    ]);
    expect(lines[1]).toMatch(/^sessions\s+sessions\s+redis\s+7[.\d]*\s+available\s+Available\s+real\s+\d+s$/);
    const object = JSON.parse(await kubectl.ok('get', 'db', 'sessions', '-o', 'json')) as {
      metadata: { namespace: string };
      status: { credentials: { vaultPath: string } };
    };
    const secret = await vault.engine
      .forCluster(vaultClusterId(object.metadata.namespace, 'managed'))
      .perform(PLATFORM_CALLER, { operation: 'READ', path: 'x', successStatus: 200 }, (operations) =>
        operations.kv.read(object.status.credentials.vaultPath),
      );
    const password = secret.data.password as string;
    expect(password.length).toBeGreaterThan(20);
    expect(JSON.stringify(object)).not.toContain(password);

    expect(await kubectl.ok('delete', 'database', 'sessions', '--wait=true', '--timeout=60s')).toBe(
      'database.cloudplane.dev "sessions" deleted\n',
    );
    await eventually(async () => {
      const entries = fs.existsSync(path.join(dataDir, 'workloads', 'redis'))
        ? fs.readdirSync(path.join(dataDir, 'workloads', 'redis'))
        : [];
      expect(entries).toEqual([]);
    }, 30_000);
  }, 120_000);
});
