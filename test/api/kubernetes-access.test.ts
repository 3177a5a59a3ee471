import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import type { Request } from 'express';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unauthenticated } from '../../accounts/account-error.js';
import { platformKubeAuthenticator } from '../../accounts/kube-identity.js';
import {
  combineKubeAuthenticators,
  startupTokenAuthenticator,
} from '../../control-plane/kubernetes-api/authentication.js';
import { generateStartupToken, writeKubeconfig } from '../../control-plane/kubernetes-api/kubeconfig.js';
import {
  createServingCertificate,
  loadServingCertificate,
} from '../../control-plane/kubernetes-api/serving-certificate.js';
import type { Authenticator } from '../../accounts/principal.js';
import { aNetwork, type Network } from '../fixtures/kube-kinds.js';
import { json, sendJson } from '../fixtures/kube-requests.js';
import { startKubeServer, TENANT_NAMESPACE, TENANT_TOKEN, type KubeServer } from '../fixtures/kube-server.js';

let server: KubeServer;
const tenant = { authorization: `Bearer ${TENANT_TOKEN}` };
const networksIn = (namespace: string) =>
  `/apis/test.cloudplane.dev/v1alpha1/namespaces/${namespace}/networks`;

beforeAll(async () => {
  server = await startKubeServer();
  await sendJson(server, 'POST', networksIn('default'), aNetwork('admin-net'));
  await sendJson(
    server,
    'POST',
    networksIn(TENANT_NAMESPACE),
    aNetwork('tenant-net', { namespace: TENANT_NAMESPACE }),
  );
});
afterAll(async () => {
  await server.close();
});

function requestWith(headers: Record<string, string>): Request {
  return { headers } as unknown as Request;
}

describe('authentication', () => {
  it.each([
    ['no credentials', {}],
    ['a wrong token', { authorization: 'Bearer not-the-token' }],
    ['a token of another scheme', { authorization: `Basic ${TENANT_TOKEN}` }],
  ])('answers 401 Unauthorized for %s', async (_case, headers) => {
    const response = await server.request('/apis', { headers: { authorization: '', ...headers } });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
  });

  it('recognises the startup token and nothing else', async () => {
    const token = generateStartupToken();
    const authenticate = startupTokenAuthenticator(token);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await authenticate(requestWith({ authorization: `Bearer ${token}` }))).toEqual({
      user: 'cloudplane:startup',
      namespaces: 'all',
    });
    expect(await authenticate(requestWith({ authorization: `Bearer ${token}x` }))).toBeUndefined();
    expect(() => startupTokenAuthenticator('')).toThrow(/must not be empty/);
  });

  it('maps a platform principal to the namespace of its organization', async () => {
    const platform: Authenticator = async (req) => {
      if (req.headers['x-api-key'] === 'good') {
        return {
          kind: 'api_key',
          id: 'key_1',
          organizationId: 'org_7',
          scopes: ['*'],
          rateLimitKey: 'key_1',
        };
      }
      if (req.headers['x-api-key'] !== undefined) throw unauthenticated('invalid key');
      return undefined;
    };
    const authenticate = combineKubeAuthenticators(
      startupTokenAuthenticator('startup'),
      platformKubeAuthenticator(platform, (organization) => `org-${organization}`),
    );
    expect(await authenticate(requestWith({ 'x-api-key': 'good' }))).toEqual({
      user: 'key_1',
      namespaces: ['org-org_7'],
    });
    expect(await authenticate(requestWith({ 'x-api-key': 'bad' }))).toBeUndefined();
    expect(await authenticate(requestWith({ authorization: 'Bearer startup' }))).toMatchObject({
      namespaces: 'all',
    });
  });
});

describe('namespace access', () => {
  it('answers 403 for another namespace without telling whether the object exists', async () => {
    for (const name of ['admin-net', 'no-such-net']) {
      const response = await server.request(`${networksIn('default')}/${name}`, { headers: tenant });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({
        reason: 'Forbidden',
        message: `networks.test.cloudplane.dev "${name}" is forbidden: User "tenant-a-user" cannot get resource "networks" in API group "test.cloudplane.dev" in the namespace "default"`,
      });
    }
  });

  it.each([
    ['create', 'POST', networksIn('default'), aNetwork('intruder')],
    ['delete', 'DELETE', `${networksIn('default')}/admin-net`, undefined],
  ])(
    'answers 403 to a %s in another namespace and changes nothing',
    async (_verb, method, requestPath, body) => {
      const response = await sendJson(server, method, requestPath, body ?? '', tenant);
      expect(response.status).toBe(403);
      expect((await server.request(`${networksIn('default')}/admin-net`)).status).toBe(200);
    },
  );

  it('serves the caller its own namespace', async () => {
    const response = await server.request(`${networksIn(TENANT_NAMESPACE)}/tenant-net`, { headers: tenant });
    expect(response.status).toBe(200);
  });

  it('lists only the allowed namespaces across all of them', async () => {
    const response = await server.request('/apis/test.cloudplane.dev/v1alpha1/networks', { headers: tenant });
    const list = await json<{ items: Network[] }>(response);
    expect(list.items.map((item) => item.metadata.name)).toEqual(['tenant-net']);
  });

  it('answers 403 to a tenant for a cluster-scoped write', async () => {
    const response = await sendJson(server, 'DELETE', `/api/v1/namespaces/${TENANT_NAMESPACE}`, '', tenant);
    expect(response.status).toBe(403);
  });
});

describe('namespaces', () => {
  it('creates a namespace and lists it with those that hold objects', async () => {
    const created = await sendJson(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'team-b' } });
    expect(created.status).toBe(201);
    expect(await json(created)).toMatchObject({
      kind: 'Namespace',
      metadata: { name: 'team-b' },
      status: { phase: 'Active' },
    });
    const list = await json<{ kind: string; items: Network[] }>(await server.request('/api/v1/namespaces'));
    expect(list.kind).toBe('NamespaceList');
    expect(list.items.map((item) => item.metadata.name)).toEqual(['default', 'team-b', TENANT_NAMESPACE]);
  });

  it('shows a tenant only its own namespace', async () => {
    const list = await json<{ items: Network[] }>(
      await server.request('/api/v1/namespaces', { headers: tenant }),
    );
    expect(list.items.map((item) => item.metadata.name)).toEqual([TENANT_NAMESPACE]);
    expect((await server.request('/api/v1/namespaces/default', { headers: tenant })).status).toBe(403);
  });

  it.each([
    ['no name', {}, 'metadata.name: Required value'],
    ['a name that is not a DNS label', { name: 'Team.B' }, 'metadata.name: Invalid value: "Team.B"'],
  ])('answers 422 for a namespace with %s', async (_case, metadata, message) => {
    const response = await sendJson(server, 'POST', '/api/v1/namespaces', { metadata });
    expect(response.status).toBe(422);
    expect((await json(response)).message).toContain(message);
  });

  it('deletes a namespace with everything in it', async () => {
    await sendJson(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'team-c' } });
    await sendJson(server, 'POST', networksIn('team-c'), aNetwork('inside', { namespace: 'team-c' }));
    const response = await server.request('/api/v1/namespaces/team-c', { method: 'DELETE' });
    expect(await response.json()).toMatchObject({
      status: 'Success',
      details: { name: 'team-c', kind: 'namespaces' },
    });
    expect((await server.request('/api/v1/namespaces/team-c')).status).toBe(404);
    expect((await server.request(`${networksIn('team-c')}/inside`)).status).toBe(404);
  });
});

describe('kubeconfig', () => {
  it('writes one context, made current, readable by its owner only', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-kubeconfig-'));
    const file = path.join(dir, 'nested', 'kubeconfig');
    writeKubeconfig(file, {
      server: 'https://127.0.0.1:8443/k8s',
      token: 'secret-token',
      namespace: 'team-a',
      certificateAuthority: '-----BEGIN CERTIFICATE-----\n',
    });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(parse(fs.readFileSync(file, 'utf8'))).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'cloudplane',
          cluster: {
            server: 'https://127.0.0.1:8443/k8s',
            'certificate-authority-data': Buffer.from('-----BEGIN CERTIFICATE-----\n').toString('base64'),
          },
        },
      ],
      users: [{ name: 'cloudplane', user: { token: 'secret-token' } }],
      contexts: [
        { name: 'cloudplane', context: { cluster: 'cloudplane', user: 'cloudplane', namespace: 'team-a' } },
      ],
      'current-context': 'cloudplane',
      preferences: {},
    });
    expect(fs.readdirSync(path.dirname(file))).toEqual(['kubeconfig']);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('serving certificate', () => {
  it('covers the addresses and names it is made for, and is its own authority', () => {
    const { cert } = createServingCertificate(
      ['127.0.0.1', '::1', 'localhost'],
      new Date('2026-01-01T00:00:00Z'),
    );
    const parsed = new X509Certificate(cert);
    expect(parsed.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(parsed.checkIP('::1')).toBe('::1');
    expect(parsed.checkHost('localhost')).toBe('localhost');
    expect(parsed.ca).toBe(true);
    expect(parsed.verify(parsed.publicKey)).toBe(true);
    expect(new Date(parsed.validTo).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('is kept across restarts and replaced when it no longer covers the host', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-cert-'));
    const first = loadServingCertificate(dir, ['127.0.0.1']);
    expect(loadServingCertificate(dir, ['127.0.0.1'])).toEqual(first);
    expect(fs.statSync(path.join(dir, 'kubernetes-api.key')).mode & 0o777).toBe(0o600);
    const widened = loadServingCertificate(dir, ['127.0.0.1', 'cloudplane.local']);
    expect(widened.cert).not.toBe(first.cert);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
