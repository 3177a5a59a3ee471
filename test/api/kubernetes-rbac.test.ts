import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aNetwork } from '../fixtures/kube-kinds.js';
import { json, sendJson } from '../fixtures/kube-requests.js';
import { startKubeServer, type KubeServer } from '../fixtures/kube-server.js';

let server: KubeServer;
const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const networksIn = (namespace: string) =>
  `/apis/test.cloudplane.dev/v1alpha1/namespaces/${namespace}/networks`;

beforeAll(async () => {
  server = await startKubeServer();
});
afterAll(async () => server?.close());

async function created(path: string, body: object): Promise<Record<string, unknown>> {
  const response = await sendJson(server, 'POST', path, body);
  expect(response.status, await response.clone().text()).toBe(201);
  return json(response);
}

async function serviceAccount(namespace: string, name: string): Promise<void> {
  await created(`/api/v1/namespaces/${namespace}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name },
  });
}

async function tokenOf(namespace: string, name: string, expirationSeconds?: number): Promise<string> {
  const answer = await created(`/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: expirationSeconds === undefined ? {} : { expirationSeconds },
  });
  return (answer.status as { token: string }).token;
}

function as(token: string, path: string, init: RequestInit = {}): Promise<Response> {
  return server.request(path, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
  });
}

/** A Role in `namespace` granting `verbs` on networks, bound to the ServiceAccount. */
async function grantNetworks(namespace: string, account: string, verbs: string[]): Promise<void> {
  await created(`${RBAC}/namespaces/${namespace}/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: `${account}-networks` },
    rules: [{ apiGroups: ['test.cloudplane.dev'], resources: ['networks'], verbs }],
  });
  await created(`${RBAC}/namespaces/${namespace}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: `${account}-networks` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${account}-networks` },
    subjects: [{ kind: 'ServiceAccount', name: account, namespace }],
  });
}

describe('RBAC on the embedded Kubernetes API', () => {
  it('lets a ServiceAccount do what its Role grants in the Role namespace, and nothing else', async () => {
    await serviceAccount('team-a', 'reader');
    await grantNetworks('team-a', 'reader', ['get', 'list']);
    await created(networksIn('team-a'), aNetwork('n1', { namespace: 'team-a' }));
    const token = await tokenOf('team-a', 'reader');

    expect((await as(token, networksIn('team-a'))).status).toBe(200);
    expect((await as(token, `${networksIn('team-a')}/n1`)).status).toBe(200);

    const write = await as(token, networksIn('team-a'), {
      method: 'POST',
      body: JSON.stringify(aNetwork('n2', { namespace: 'team-a' })),
    });
    expect(write.status).toBe(403);
    expect(await json(write)).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message:
        'networks.test.cloudplane.dev is forbidden: User "system:serviceaccount:team-a:reader" cannot create resource "networks" in API group "test.cloudplane.dev" in the namespace "team-a"',
      details: { group: 'test.cloudplane.dev', kind: 'networks' },
    });
    expect((await as(token, networksIn('team-b'))).status).toBe(403);
    expect((await as(token, '/apis/test.cloudplane.dev/v1alpha1/networks')).status).toBe(403);
  });

  it('lets a ClusterRoleBinding grant in every namespace, lists across namespaces included', async () => {
    await serviceAccount('ops', 'auditor');
    await created(`${RBAC}/clusterroles`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'network-auditor' },
      rules: [
        { apiGroups: ['test.cloudplane.dev'], resources: ['networks'], verbs: ['get', 'list', 'watch'] },
      ],
    });
    await created(`${RBAC}/clusterrolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'network-auditor' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'network-auditor' },
      subjects: [{ kind: 'ServiceAccount', name: 'auditor', namespace: 'ops' }],
    });
    const token = await tokenOf('ops', 'auditor');
    const all = await as(token, '/apis/test.cloudplane.dev/v1alpha1/networks');
    expect(all.status).toBe(200);
    expect((await json<{ items: unknown[] }>(all)).items.length).toBeGreaterThan(0);
    expect((await as(token, `${networksIn('team-a')}/n1`, { method: 'DELETE' })).status).toBe(403);
  });

  it('grants a status subresource only where a rule names it', async () => {
    await serviceAccount('team-s', 'writer');
    await grantNetworks('team-s', 'writer', ['get', 'update']);
    await created(networksIn('team-s'), aNetwork('s1', { namespace: 'team-s' }));
    const token = await tokenOf('team-s', 'writer');
    const current = await json(await as(token, `${networksIn('team-s')}/s1`));
    const status = await as(token, `${networksIn('team-s')}/s1/status`, {
      method: 'PUT',
      body: JSON.stringify({ ...current, status: { phase: 'Ready' } }),
    });
    expect(status.status).toBe(403);
    expect((await json(status)).message).toContain('cannot update resource "networks/status"');
  });

  it('refuses a token once its ServiceAccount is deleted, even if one of that name is created again', async () => {
    await serviceAccount('team-d', 'temp');
    await grantNetworks('team-d', 'temp', ['list']);
    const token = await tokenOf('team-d', 'temp');
    expect((await as(token, networksIn('team-d'))).status).toBe(200);
    const deleted = await server.request('/api/v1/namespaces/team-d/serviceaccounts/temp', {
      method: 'DELETE',
    });
    expect(deleted.status).toBe(200);
    expect((await as(token, networksIn('team-d'))).status).toBe(401);
    await serviceAccount('team-d', 'temp');
    expect((await as(token, networksIn('team-d'))).status).toBe(401);
  });

  it('refuses a token that is expired, tampered with or for an account that does not exist', async () => {
    expect(
      (await sendJson(server, 'POST', '/api/v1/namespaces/team-a/serviceaccounts/nobody/token', {})).status,
    ).toBe(404);
    const short = await sendJson(server, 'POST', '/api/v1/namespaces/team-a/serviceaccounts/reader/token', {
      spec: { expirationSeconds: 60 },
    });
    expect(short.status).toBe(422);
    expect((await json(short)).message).toContain('spec.expirationSeconds');
    const token = await tokenOf('team-a', 'reader');
    const [header, payload, signature] = token.split('.');
    const forged = `${header}.${payload}.${signature!.slice(0, -2)}AA`;
    expect((await as(forged, networksIn('team-a'))).status).toBe(401);
  });

  it('answers a TokenReview with the user and groups of a token, and unauthenticated for another', async () => {
    const token = await tokenOf('team-a', 'reader');
    const review = await created('/apis/authentication.k8s.io/v1/tokenreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token },
    });
    expect(review.status).toEqual({
      authenticated: true,
      user: {
        username: 'system:serviceaccount:team-a:reader',
        uid: expect.any(String),
        groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'],
      },
    });
    const refused = await created('/apis/authentication.k8s.io/v1/tokenreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token: 'not-a-token' },
    });
    expect(refused.status).toMatchObject({ authenticated: false });
  });

  it('answers a SelfSubjectAccessReview for the caller, as kubectl auth can-i asks', async () => {
    const token = await tokenOf('team-a', 'reader');
    const ask = async (verb: string, namespace: string) => {
      const response = await as(token, '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        method: 'POST',
        body: JSON.stringify({
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SelfSubjectAccessReview',
          spec: {
            resourceAttributes: { namespace, verb, group: 'test.cloudplane.dev', resource: 'networks' },
          },
        }),
      });
      expect(response.status).toBe(201);
      return ((await json(response)).status as { allowed: boolean }).allowed;
    };
    expect(await ask('list', 'team-a')).toBe(true);
    expect(await ask('delete', 'team-a')).toBe(false);
    expect(await ask('list', 'team-b')).toBe(false);
  });

  it('answers a SubjectAccessReview about another subject for a caller allowed to ask', async () => {
    const review = await created('/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'system:serviceaccount:ops:auditor',
        groups: ['system:serviceaccounts'],
        resourceAttributes: {
          namespace: 'team-a',
          verb: 'watch',
          group: 'test.cloudplane.dev',
          resource: 'networks',
        },
      },
    });
    expect(review.status).toMatchObject({ allowed: true });
    const token = await tokenOf('team-a', 'reader');
    const refused = await as(token, '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      method: 'POST',
      body: JSON.stringify({
        spec: { user: 'x', resourceAttributes: { verb: 'get', resource: 'networks' } },
      }),
    });
    expect(refused.status).toBe(403);
  });

  it('keeps full access for the start-up credential and refuses RBAC objects to a ServiceAccount without rights on them', async () => {
    expect((await server.request(`${RBAC}/clusterroles`)).status).toBe(200);
    const token = await tokenOf('team-a', 'reader');
    const escalate = await as(token, `${RBAC}/clusterrolebindings`, {
      method: 'POST',
      body: JSON.stringify({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'escalate' },
        roleRef: { kind: 'ClusterRole', name: 'network-auditor' },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'team-a' }],
      }),
    });
    expect(escalate.status).toBe(403);
  });

  it('serves discovery to every authenticated caller', async () => {
    const token = await tokenOf('team-a', 'reader');
    expect((await as(token, '/apis')).status).toBe(200);
    expect((await as(token, '/api/v1')).status).toBe(200);
  });
});
