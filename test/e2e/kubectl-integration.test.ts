import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { integrationController } from '../../controllers/integration/integration-controller.js';
import { readCredentials, storeCredentials } from '../../integrations/credentials.js';
import { ControllerRunner } from '../../controllers/runtime/controller-runner.js';
import { INTEGRATION, type Integration } from '../../crds/integration.js';
import { loadKinds } from '../../crds/registry.js';
import { createLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';
import { openTestSqliteDatabase, type TestSqliteDatabase } from '../fixtures/db-sqlite.js';
import { eventually } from '../fixtures/eventually.js';
import { Kubectl, KUBECTL } from '../fixtures/kube-kubectl.js';
import { startKubeServer, type KubeServer } from '../fixtures/kube-server.js';
import { startChatProvider, type ChatProvider } from '../fixtures/provider-chat.js';

const available = fs.existsSync(KUBECTL);
if (!available)
  console.warn(`SKIPPING the kubectl Integration suite: ${KUBECTL} is missing; run npm run tools`);

const INTEGRATION_ID = '5b0c7f3e-2d1a-4c8b-9e6f-a1b2c3d4e5f6';

describe.skipIf(!available)('kubectl with Integrations', () => {
  let server: KubeServer;
  let data: TestSqliteDatabase;
  let runner: ControllerRunner;
  let kubectl: Kubectl;
  let chat: ChatProvider;
  const platformKey = randomBytes(32);

  beforeAll(async () => {
    chat = await startChatProvider();
    chat.webhooks.add('T7/B7/kubectl');
    chat.channels.add('#deployments');
    server = await startKubeServer({ kinds: loadKinds([INTEGRATION]) });
    data = await openTestSqliteDatabase();
    runner = new ControllerRunner({
      store: server.store,
      logger: createLogger('silent'),
      metrics: createMetrics(),
    });
    const config = loadConfig({ CLOUDPLANE_EGRESS_ALLOW_PRIVATE: 'true' });
    runner.register(
      integrationController({
        database: data.database,
        platformKey,
        config: config.integrations,
        now: () => new Date(),
      }),
    );
    await runner.start();
    kubectl = new Kubectl(server);
  });
  afterAll(async () => {
    await runner?.stop();
    await server?.close();
    await data?.dispose();
    await chat?.close();
    kubectl?.cleanup();
  });

  it('applies a chat Integration whose credentials are in the data plane, waits for Ready, and deletes them with it', async () => {
    const credentialsRef = await storeCredentials(data.database, platformKey, {
      integrationId: INTEGRATION_ID,
      namespace: 'default',
      type: 'chat',
      accountKey: null,
      credentials: { webhook_url: chat.webhookUrl('T7/B7/kubectl') },
      now: new Date(),
    });
    const manifest = [
      'apiVersion: cloudplane.dev/v1alpha1',
      'kind: Integration',
      'metadata:',
      `  name: ${INTEGRATION_ID}`,
      'spec:',
      '  type: chat',
      '  name: team chat',
      `  credentialsRef: ${credentialsRef}`,
      '  configuration:',
      '    channels:',
      "      deployments: '#deployments'",
      '',
    ].join('\n');
    const file = kubectl.manifest('integration.yaml', manifest);
    expect(await kubectl.ok('apply', '-f', file)).toBe(
      `integration.cloudplane.dev/${INTEGRATION_ID} created\n`,
    );
    expect(
      await kubectl.ok('wait', '--for=condition=Ready', `integration/${INTEGRATION_ID}`, '--timeout=30s'),
    ).toBe(`integration.cloudplane.dev/${INTEGRATION_ID} condition met\n`);
    expect(chat.messages).toEqual([
      { token: 'T7/B7/kubectl', text: expect.any(String), channel: '#deployments' },
    ]);

    const output = await kubectl.ok('get', 'integrations');
    const [header, row] = output
      .trimEnd()
      .split('\n')
      .map((line) => line.split(/\s{2,}/));
    expect(header).toEqual(['NAME', 'TYPE', 'DISPLAY NAME', 'PHASE', 'REASON', 'AGE']);
    expect(row?.slice(0, 5)).toEqual([INTEGRATION_ID, 'chat', 'team chat', 'connected', 'Connected']);

    const shown = parse(await kubectl.ok('get', 'intg', INTEGRATION_ID, '-o', 'yaml')) as Integration;
    expect(shown.metadata.finalizers).toEqual(['cloudplane.dev/integration-credentials']);
    expect(shown.status).toMatchObject({ phase: 'connected', observedGeneration: 1, errorCount: 0 });
    expect(JSON.stringify(shown)).not.toContain('T7/B7/kubectl');

    await kubectl.ok('delete', 'integration', INTEGRATION_ID, '--timeout=30s');
    await eventually(async () =>
      expect(await readCredentials(data.database, platformKey, INTEGRATION_ID)).toBeUndefined(),
    );
  });
});
