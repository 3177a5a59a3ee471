/**
 * Stacks through kubectl: the embedded Kubernetes API served over the platform's store, entered
 * with a user's own token in their organization's namespace. A Stack applied with kubectl is the
 * stack the REST API lists, a StackExecution applied with kubectl runs like a REST apply, and an
 * invalid template is reported on the Stack's status.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationNamespace } from '../../accounts/organizations.js';
import { platformKubeAuthenticator } from '../../accounts/kube-identity.js';
import { startServer, type RunningServer } from '../../apiserver/server.js';
import { kubernetesApiApp, writeKubeconfig } from '../../control-plane/kubernetes-api/index.js';
import { createServingCertificate } from '../../control-plane/kubernetes-api/serving-certificate.js';
import { systemClock } from '../../observability/clock.js';
import { createLogger } from '../../observability/logger.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { eventually } from '../fixtures/eventually.js';
import { KUBECTL } from '../fixtures/kube-kubectl.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

const available = fs.existsSync(KUBECTL);
if (!available) console.warn(`SKIPPING the kubectl Stack suite: ${KUBECTL} is missing; run npm run tools`);

type Json = Record<string, unknown>;

/** A Stack manifest; `template` is YAML indented under `spec.template`. */
function stackManifest(name: string, template: string[]): string {
  return [
    'apiVersion: cloudplane.dev/v1alpha1',
    'kind: Stack',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    `  name: ${name}`,
    '  tenant: acme',
    '  version: 1',
    '  template:',
    ...template.map((line) => `    ${line}`),
    '',
  ].join('\n');
}

const VALID_TEMPLATE = [
  'version: "1.0.0"',
  'name: site',
  'secrets:',
  '  signing_key: {type: generated, generator_type: token, length: 32}',
  'outputs:',
  '  greeting: {value: hello}',
];

describe.skipIf(!available)('kubectl with Stacks', () => {
  let app: TestPlatform;
  let owner: TestAccount;
  let kubeApi: RunningServer;
  let dir: string;
  let kubeconfig: string;

  function kubectl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        KUBECTL,
        args,
        { env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: kubeconfig }, timeout: 60_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });
  }
  async function kubectlOk(...args: string[]): Promise<string> {
    const result = await kubectl(...args);
    expect(result.code, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  }
  async function applyManifest(name: string, content: string): Promise<string> {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content);
    return kubectlOk('apply', '-f', file);
  }
  async function call(
    method: string,
    route: string,
    body?: unknown,
  ): Promise<{ status: number; body: Json }> {
    const response = await app.call(method, route, { token: owner.token, body });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Json };
  }

  beforeAll(async () => {
    app = await startPlatform({ clock: systemClock });
    owner = await registerAndSignIn(app);
    const me = await call('GET', '/v1/auth/me');
    const namespace = organizationNamespace((me.body.data as Json).current_organization_id as string);
    const certificate = createServingCertificate(['127.0.0.1', 'localhost']);
    kubeApi = await startServer(
      kubernetesApiApp({
        store: app.store,
        logger: createLogger('silent'),
        authenticate: platformKubeAuthenticator(app.platform.authenticator, organizationNamespace),
      }),
      { host: '127.0.0.1', port: 0, tls: certificate, gracePeriodMs: 100 },
    );
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-kubectl-stacks-'));
    kubeconfig = path.join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfig, {
      server: kubeApi.url,
      token: owner.token,
      namespace,
      certificateAuthority: certificate.cert,
    });
  }, 60_000);
  afterAll(async () => {
    await kubeApi?.close();
    await app?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('creates a Stack that GET /v1/stacks lists, and shows its columns in kubectl get stacks', async () => {
    expect(await applyManifest('site.yaml', stackManifest('site', VALID_TEMPLATE))).toBe(
      'stack.cloudplane.dev/site created\n',
    );
    const listed = await call('GET', '/v1/stacks');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: 'site', name: 'site', tenant: 'acme', version: 1 }),
    ]);

    const lines = await eventually(async () => {
      const output = (await kubectlOk('get', 'stacks')).trimEnd().split('\n');
      expect(output[1]).toMatch(/^site\s+site\s+acme\s+pending\s+/);
      return output;
    });
    expect(lines[0]?.split(/\s{2,}/)).toEqual([
      'NAME',
      'DISPLAY NAME',
      'TENANT',
      'STATUS',
      'PHASE',
      'REASON',
      'VERSION',
      'APPLIED',
      'AGE',
    ]);
  });

  it('runs a StackExecution applied with kubectl like a REST apply, and the stack becomes active', async () => {
    const execution = [
      'apiVersion: cloudplane.dev/v1alpha1',
      'kind: StackExecution',
      'metadata:',
      '  name: site-first-apply',
      'spec:',
      '  stack: site',
      '  operation: apply',
      '  basedOnVersion: 1',
      '',
    ].join('\n');
    expect(await applyManifest('apply.yaml', execution)).toBe(
      'stackexecution.cloudplane.dev/site-first-apply created\n',
    );
    // An execution is Ready once it completed, as kstatus reads a Job: kubectl waits for its end.
    expect(
      await kubectlOk('wait', '--for=condition=Ready', 'stackexecution/site-first-apply', '--timeout=60s'),
    ).toBe('stackexecution.cloudplane.dev/site-first-apply condition met\n');
    expect(await kubectlOk('wait', '--for=condition=Ready', 'stack/site', '--timeout=60s')).toBe(
      'stack.cloudplane.dev/site condition met\n',
    );
    const done = await eventually(async () => {
      const answer = await call('GET', '/v1/stacks/site/executions/site-first-apply');
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const current = answer.body.data as Json;
      expect(['completed', 'failed'], JSON.stringify(current)).toContain(current.status);
      return current;
    }, 60_000);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect((done.phases as { status: string }[]).every((phase) => phase.status === 'completed')).toBe(true);

    const stack = await eventually(async () => {
      const current = (await call('GET', '/v1/stacks/site')).body.data as Json;
      expect(current.status).toBe('active');
      return current;
    }, 30_000);
    expect(stack).toMatchObject({ applied_version: 1, outputs: { greeting: 'hello' } });
    const secrets = ((await call('GET', '/v1/stacks/site/secrets')).body.data as Json).secrets as Json[];
    expect(secrets).toEqual([
      expect.objectContaining({ name: 'signing_key', vault_path: 'stacks/site/secrets/signing_key' }),
    ]);
    const lines = (await kubectlOk('get', 'stacks', 'site')).trimEnd().split('\n');
    expect(lines[1]).toMatch(/^site\s+site\s+acme\s+active\s+services\s+Applied\s+1\s+1\s+/);
  }, 90_000);

  it('reports an invalid template on the Stack: failed, naming the template path, Stalled', async () => {
    const invalid = stackManifest('broken', [
      'version: "1.0.0"',
      'name: broken',
      'outputs:',
      '  url: {value: "${resources.missing.endpoint}"}',
    ]);
    expect(await applyManifest('broken.yaml', invalid)).toBe('stack.cloudplane.dev/broken created\n');
    const status = await eventually(async () => {
      const object = JSON.parse(await kubectlOk('get', 'stack', 'broken', '-o', 'json')) as {
        status?: { status?: string; message?: string; conditions?: { type: string; status: string }[] };
      };
      expect(object.status?.status).toBe('failed');
      return object.status!;
    });
    expect(status.message).toContain('template.outputs.url.value');
    expect(status.conditions).toContainEqual(expect.objectContaining({ type: 'Stalled', status: 'True' }));
    const stack = (await call('GET', '/v1/stacks/broken')).body.data as Json;
    expect(stack).toMatchObject({ status: 'failed' });
    expect(stack.message).toContain('template.outputs.url.value');
  });
});
