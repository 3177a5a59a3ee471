import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../crds/registry.js';
import {
  createPlatformCluster,
  platformUser,
  platformVaultToken,
  type PlatformCluster,
} from '../fixtures/vault-api-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

/** Debian's Python, where `python3-hvac` lives (hack/install-test-packages.sh installs it). */
const PYTHON = '/usr/bin/python3';
const hvacPresent = spawnSync(PYTHON, ['-c', 'import hvac']).status === 0;
if (!hvacPresent)
  console.warn(`SKIPPING the hvac suite: ${PYTHON} cannot import hvac; run hack/install-test-packages.sh`);

const DRIVER = path.join(packageRoot(import.meta.url), 'test/fixtures/hvac-driver.py');

describe.skipIf(!hvacPresent)('the Vault-compatible API driven by hvac', () => {
  let app: TestPlatform;
  let cluster: PlatformCluster;
  let rootToken: string;

  beforeAll(async () => {
    app = await startPlatform({ userAgent: 'vault-api-test' });
    const bearer = await platformUser(app);
    cluster = await createPlatformCluster(app, bearer, { name: 'hvac', auto_unseal: true });
    rootToken = await platformVaultToken(app, bearer, cluster.id, ['root']);
  });
  afterAll(async () => app?.close());

  it('writes, reads, LISTs and deletes KV v2 secrets, encrypts with transit, manages policies and logs in with AppRole', async () => {
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        PYTHON,
        [DRIVER, cluster.apiAddress, rootToken],
        { timeout: 60_000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`hvac driver failed: ${stderr || error.message}`)) : resolve(stdout),
      );
    });
    expect(JSON.parse(output)).toEqual({
      kv_read: { password: 'rotated' },
      kv_version: 2,
      kv_list: ['api', 'db'],
      kv_list_after_delete: ['db'],
      transit_prefix: 'vault:v1',
      transit_roundtrip: 'order 42',
      policies: expect.arrayContaining(['app-reader', 'default', 'root']),
      approle_policies: expect.arrayContaining(['app-reader']),
      approle_read: { password: 'rotated' },
      approle_write: 'forbidden',
    });
  });
});
