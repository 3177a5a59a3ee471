/**
 * The operator and the apiserver run as the chart's ServiceAccounts against the embedded
 * Kubernetes API loaded with the chart's rendered RBAC, as they would on a cluster: a request the
 * chart does not grant is refused with 403, so drift between the code and the chart fails here.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EVENT_KIND, NAMESPACE_KIND } from '../../control-plane/built-in-kinds.js';
import type { CoreEvent } from '../../control-plane/event-objects.js';
import { helmPresent, HELM, renderChart, type Manifest } from '../fixtures/chart.js';
import { describeWithPostgres } from '../fixtures/db-postgres.js';
import { eventually } from '../fixtures/eventually.js';
import { useClusterMode } from '../fixtures/cluster-mode.js';
import { CloudplaneProcess } from '../fixtures/kube-backend-process.js';

const RELEASE_NAMESPACE = 'cloudplane-system';
const STARTUP_MS = 60_000;
const RBAC_KINDS: Record<string, string> = {
  ServiceAccount: 'serviceaccounts',
  Role: 'roles',
  ClusterRole: 'clusterroles',
  RoleBinding: 'rolebindings',
  ClusterRoleBinding: 'clusterrolebindings',
};

if (!helmPresent) console.warn(`SKIPPING cluster RBAC tests: ${HELM} is missing; run npm run tools`);

function collectionPath(manifest: Manifest): string {
  const plural = RBAC_KINDS[manifest.kind]!;
  const namespaced = ['ServiceAccount', 'Role', 'RoleBinding'].includes(manifest.kind);
  const base = manifest.apiVersion === 'v1' ? '/api/v1' : `/apis/${manifest.apiVersion}`;
  return namespaced ? `${base}/namespaces/${RELEASE_NAMESPACE}/${plural}` : `${base}/${plural}`;
}

type RuleEditor = (manifests: Manifest[]) => void;

(helmPresent ? describeWithPostgres : describe.skip)('the chart RBAC on the embedded Kubernetes API', () => {
  const cluster = useClusterMode('cp-cluster-rbac-');
  const platformKey = randomBytes(32).toString('base64');

  /** Loads the chart's ServiceAccounts and RBAC as the admin; answers a kubeconfig per component. */
  async function installRbac(edit: RuleEditor = () => {}): Promise<Record<'operator' | 'apiserver', string>> {
    const manifests = renderChart(undefined, RELEASE_NAMESPACE).filter(
      (manifest) => manifest.kind in RBAC_KINDS,
    );
    edit(manifests);
    for (const manifest of manifests) {
      const response = await cluster.api.request(collectionPath(manifest), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(manifest),
      });
      expect(response.status, await response.clone().text()).toBe(201);
    }
    const kubeconfigs = {} as Record<'operator' | 'apiserver', string>;
    for (const component of ['operator', 'apiserver'] as const) {
      const response = await cluster.api.request(
        `/api/v1/namespaces/${RELEASE_NAMESPACE}/serviceaccounts/cloudplane-${component}/token`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ spec: {} }),
        },
      );
      expect(response.status).toBe(201);
      const { status } = (await response.json()) as { status: { token: string } };
      kubeconfigs[component] = cluster.api.kubeconfigFor(component, status.token);
    }
    return kubeconfigs;
  }

  function start(command: 'operator' | 'apiserver', kubeconfig: string): CloudplaneProcess {
    const started = new CloudplaneProcess([command], {
      KUBECONFIG: kubeconfig,
      DATABASE_URL: cluster.database.url,
      PORT: '0',
      POD_NAME: `${command}-0`,
      CLOUDPLANE_LEADER_ELECTION_NAMESPACE: RELEASE_NAMESPACE,
      CLOUDPLANE_DATA_DIR: cluster.dataDir,
      CLOUDPLANE_LOG_LEVEL: 'info',
      CLOUDPLANE_KMS_KEY: platformKey,
      CLOUDPLANE_RATE_LIMIT_PER_MINUTE: '100000',
    });
    cluster.track(started);
    return started;
  }

  async function signedIn(
    url: string,
  ): Promise<(method: string, path: string, body?: unknown) => Promise<Response>> {
    const email = `rbac-${Date.now()}@example.com`;
    const password = 'correct horse battery staple';
    const post = (route: string, body: unknown, token?: string) =>
      fetch(`${url}${route}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body),
      });
    expect((await post('/v1/auth/register', { email, password, name: 'Grace Hopper' })).status).toBe(201);
    const login = await post('/v1/auth/login', { email, password });
    const { data } = (await login.json()) as { data: { token: string } };
    return (method, route, body) =>
      fetch(`${url}${route}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${data.token}` },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
  }

  async function startBoth(edit?: RuleEditor) {
    const kubeconfigs = await installRbac(edit);
    const operator = start('operator', kubeconfigs.operator);
    const apiserver = start('apiserver', kubeconfigs.apiserver);
    const { url } = await eventually(() => apiserver.logged('cloudplane API serving'), STARTUP_MS);
    await eventually(() => operator.logged('started leading'), STARTUP_MS);
    return { operator, apiserver, call: await signedIn(String(url)) };
  }

  const forbidden = (process: CloudplaneProcess) =>
    process.logs.filter((line) => JSON.stringify(line).includes('Forbidden'));

  it(
    'runs a VPC from create to available and delete with the chart rules as they are',
    { timeout: 180_000 },
    async () => {
      const { operator, apiserver, call } = await startBoth();
      const created = await call('POST', '/api/v1/vpcs', {
        name: 'main',
        cidr_block: '10.20.0.0/16',
        region: 'us-east-1',
      });
      expect(created.status, await created.clone().text()).toBe(201);
      const { id } = (await created.json()) as { id: string };
      await eventually(async () => {
        const read = (await (await call('GET', `/api/v1/vpcs/${id}`)).json()) as { status: string };
        expect(read.status).toBe('available');
      }, STARTUP_MS);
      // The operator records Events through the kube-apiserver, as its ServiceAccount may.
      await eventually(async () => {
        const events = (await cluster.api.store.list(EVENT_KIND, {})).items as unknown as CoreEvent[];
        const about = events.filter((event) => event.involvedObject.name === id);
        expect(about.map((event) => [event.type, event.reason])).toContainEqual(['Normal', 'Available']);
      }, STARTUP_MS);
      expect((await call('DELETE', `/api/v1/vpcs/${id}`)).status).toBe(204);
      // The operator removed its finalizer: what remains is the tombstone a deleted VPC reads as.
      await eventually(async () => {
        const read = (await (await call('GET', `/api/v1/vpcs/${id}`)).json()) as { status: string };
        expect(read.status).toBe('deleted');
      }, STARTUP_MS);
      expect(forbidden(operator)).toEqual([]);
      expect(forbidden(apiserver)).toEqual([]);
    },
  );

  it(
    'deletes an organization with cascade: the operator empties and removes its namespace',
    { timeout: 180_000 },
    async () => {
      const { operator, apiserver, call } = await startBoth();
      const created = await call('POST', '/api/v1/vpcs', {
        name: 'doomed',
        cidr_block: '10.40.0.0/16',
        region: 'us-east-1',
      });
      expect(created.status).toBe(201);
      const organizations = async () =>
        ((await (await call('GET', '/v1/organizations')).json()) as { data: { id: string; name: string }[] })
          .data;
      const [organization] = await organizations();
      const namespace = `org-${organization!.id.slice(4)}`;
      const deleting = await call('DELETE', `/v1/organizations/${organization!.id}?cascade=true`, {
        name: organization!.name,
      });
      expect(deleting.status).toBe(202);
      await eventually(async () => {
        expect((await organizations()).map((entry) => entry.id)).not.toContain(organization!.id);
      }, STARTUP_MS);
      const namespaces = await cluster.api.store.list(NAMESPACE_KIND, {});
      expect(namespaces.items.map((item) => item.metadata.name)).not.toContain(namespace);
      expect(forbidden(operator)).toEqual([]);
      expect(forbidden(apiserver)).toEqual([]);
    },
  );

  it(
    'refuses the operator what a rule no longer grants, as a cluster would',
    { timeout: 180_000 },
    async () => {
      const withoutStatusUpdate: RuleEditor = (manifests) => {
        const role = manifests.find(
          (manifest) => manifest.kind === 'ClusterRole' && manifest.metadata.name === 'cloudplane-operator',
        ) as Manifest & { rules: { resources: string[]; verbs: string[] }[] };
        const status = role.rules.find((rule) => rule.resources.includes('*/status'))!;
        status.verbs = status.verbs.filter((verb) => verb !== 'update');
      };
      const { operator, call } = await startBoth(withoutStatusUpdate);
      const created = await call('POST', '/api/v1/vpcs', {
        name: 'main',
        cidr_block: '10.30.0.0/16',
        region: 'us-east-1',
      });
      expect(created.status).toBe(201);
      const refused = await eventually(() => {
        const lines = forbidden(operator);
        expect(lines.length).toBeGreaterThan(0);
        return lines[0]!;
      }, STARTUP_MS);
      expect(JSON.stringify(refused)).toContain('cannot update resource \\"vpcs/status\\"');
    },
  );
});
