import { execFile } from 'node:child_process';
import { WebSocket } from 'ws';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationNamespace } from '../../accounts/organizations.js';
import { eventually } from '../fixtures/eventually.js';
import { startServe, type Started } from '../fixtures/serve-process.js';
import { KUBECTL } from '../fixtures/kube-kubectl.js';

function kubectl(
  kubeconfig: string,
  home: string,
  ...args: string[]
): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      KUBECTL,
      args,
      { env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: kubeconfig } },
      (error, stdout, stderr) => resolve({ code: error ? 1 : 0, out: stdout + stderr }),
    );
  });
}

describe('cloudplane serve, as a process', () => {
  /** Registers a user and answers their access token. */
  async function signIn(email: string): Promise<string> {
    const credentials = { email, password: 'a long enough passphrase', name: email.split('@')[0]! };
    const post = (requestPath: string, body: unknown) =>
      fetch(`${started.url}${requestPath}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    await post('/v1/auth/register', credentials);
    const login = (await (
      await post('/v1/auth/login', { email, password: credentials.password })
    ).json()) as {
      data: { token: string };
    };
    return login.data.token;
  }

  let dataDir: string;
  let started: Started;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloudplane-serve-'));
    started = await startServe(dataDir);
  });

  afterAll(async () => {
    if (started.child.exitCode === null) started.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers /health, /metrics and /openapi.json on the embedded default', async () => {
    const health = await fetch(`${started.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'healthy' });
    const metrics = await (await fetch(`${started.url}/metrics`)).text();
    expect(metrics).toMatch(/^# TYPE http_requests_total counter$/m);
    expect(metrics).toMatch(/^# TYPE controller_reconcile_total counter$/m);
    expect(metrics).toMatch(/^database_connections_active 1$/m);
    const openapi = (await (await fetch(`${started.url}/openapi.json`)).json()) as {
      openapi: string;
      paths: object;
    };
    expect(openapi.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.paths)).toContain('/v1/auth/login');
  });

  it('writes a kubeconfig into the data dir that kubectl uses at once', async () => {
    const kubeconfig = path.join(dataDir, 'kubeconfig');
    expect(fs.statSync(kubeconfig).mode & 0o777).toBe(0o600);
    const created = await kubectl(kubeconfig, dataDir, 'create', 'namespace', 'team-a');
    expect(created).toMatchObject({ code: 0 });
    const listed = await kubectl(kubeconfig, dataDir, 'get', 'namespaces');
    expect(listed.out).toMatch(/^team-a\s+Active/m);
  });

  it('lets a platform user in with their own token, limited to their organization namespace', async () => {
    const token = await signIn('kube@example.com');
    const me = (await (
      await fetch(`${started.url}/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { data: { current_organization_id: string } };
    const namespace = organizationNamespace(me.data.current_organization_id);

    const admin = path.join(dataDir, 'kubeconfig');
    const userKubeconfig = path.join(dataDir, 'user-kubeconfig');
    const config = fs.readFileSync(admin, 'utf8').replace(/token: .*/, `token: ${token}`);
    fs.writeFileSync(userKubeconfig, config, { mode: 0o600 });

    const own = await kubectl(userKubeconfig, dataDir, 'get', 'leases', '-n', namespace);
    expect(own.code).toBe(0);
    const other = await kubectl(userKubeconfig, dataDir, 'get', 'leases', '-n', 'team-a');
    expect(other.code).toBe(1);
    expect(other.out).toMatch(/Forbidden|forbidden/);
  });

  it('serves a vault cluster through the REST API and its Vault-compatible address', async () => {
    const token = await signIn('vault@example.com');
    const created = await fetch(`${started.url}/api/v1/vault`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'payments', auto_unseal: false }),
    });
    expect(created.status).toBe(201);
    const cluster = (await created.json()) as { id: string; unseal_keys: string[] };
    expect(cluster.unseal_keys).toHaveLength(5);
    const detail = (await (
      await fetch(`${started.url}/api/v1/vault/${cluster.id}`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { api_address: string };
    expect(detail.api_address).toBe(`${started.url}/vault/${cluster.id}`);
    const sealStatus = await fetch(`${detail.api_address}/v1/sys/seal-status`);
    expect(await sealStatus.json()).toMatchObject({ sealed: true, t: 3, n: 5, progress: 0 });
  });

  it('tells a chat integration about a VPC created through the API', async () => {
    const messages: { text: string; channel: string }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        messages.push(JSON.parse(body) as { text: string; channel: string });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    try {
      const token = await signIn('chat@example.com');
      const call = (method: string, requestPath: string, body: unknown) =>
        fetch(`${started.url}${requestPath}`, {
          method,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
        });
      const chat = await call('POST', '/api/v1/integrations/chat', {
        name: 'ops chat',
        webhook_url: `http://127.0.0.1:${port}/hook`,
        channels: { deployments: '#deploys', alerts: '#alerts', logs: '#logs' },
      });
      expect(chat.status).toBe(201);
      const vpc = await call('POST', '/api/v1/vpcs', {
        name: 'shop',
        cidr_block: '10.20.0.0/16',
        region: 'us-east-1',
        enable_dns_hostnames: true,
        enable_dns_support: true,
        enable_flow_logs: false,
      });
      expect(vpc.status).toBe(201);
      await eventually(() =>
        expect(messages).toContainEqual(
          expect.objectContaining({ channel: '#deploys', text: expect.stringContaining('[vpc.created]') }),
        ),
      );
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it("streams its organization's events over a WebSocket at /v1/events/stream", async () => {
    const token = await signIn('streamer@example.com');
    const socket = new WebSocket(`${started.url.replace(/^http/, 'ws')}/v1/events/stream`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const messages: Record<string, unknown>[] = [];
    socket.on('message', (raw) => messages.push(JSON.parse(String(raw)) as Record<string, unknown>));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(JSON.stringify({ subscribe: ['vpc.created'] }));
    const created = await fetch(`${started.url}/api/v1/vpcs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'streamed', cidr_block: '10.42.0.0/16', region: 'us-east-1' }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const event = await eventually(() => {
      const found = messages.find((message) => message.type === 'vpc.created');
      expect(found).toBeDefined();
      return found!;
    });
    expect(event).toMatchObject({ specversion: '1.0', type: 'vpc.created' });
    expect(JSON.stringify(event)).toContain(id);
    socket.close();
  });

  it('stops cleanly on SIGTERM', async () => {
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
    expect(started.lines.some((line) => line.msg === 'shutting down')).toBe(true);
  });
});
