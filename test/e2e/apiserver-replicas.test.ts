import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeWithPostgres } from '../fixtures/db-postgres.js';
import { eventually } from '../fixtures/eventually.js';
import { useClusterMode } from '../fixtures/cluster-mode.js';
import { CloudplaneProcess } from '../fixtures/kube-backend-process.js';

const STARTUP_MS = 60_000;

describeWithPostgres('two `cloudplane apiserver` replicas over one cluster and database', () => {
  const cluster = useClusterMode('cp-replicas-');

  /** Two replicas as the chart runs them: one platform key, one public URL (the Service's). */
  async function startReplicas(): Promise<[string, string]> {
    const shared = {
      KUBECONFIG: cluster.api.kubeconfigPath,
      DATABASE_URL: cluster.database.url,
      PORT: '0',
      CLOUDPLANE_DATA_DIR: cluster.dataDir,
      CLOUDPLANE_KMS_KEY: randomBytes(32).toString('base64'),
      CLOUDPLANE_BASE_URL: 'https://cloudplane.example.com',
    };
    const replicas = [0, 1].map(() => cluster.track(new CloudplaneProcess(['apiserver'], shared)));
    const urls = [];
    for (const replica of replicas) {
      urls.push(String((await eventually(() => replica.logged('cloudplane API serving'), STARTUP_MS)).url));
    }
    return [urls[0]!, urls[1]!];
  }

  interface Answer {
    status: number;
    body: { data: { name: string; token: string } } | undefined;
  }

  async function call(
    url: string,
    method: string,
    path: string,
    token?: string,
    body?: unknown,
  ): Promise<Answer> {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Answer['body']) : undefined };
  }

  it('refuses on the other replica at once a token signed out, and shows a profile changed, through one', async () => {
    const [a, b] = await startReplicas();
    const account = { email: 'replicas@example.com', password: 'correct horse battery', name: 'Before' };
    expect((await call(a, 'POST', '/v1/auth/register', undefined, account)).status).toBe(201);
    const login = await call(a, 'POST', '/v1/auth/login', undefined, {
      email: account.email,
      password: account.password,
    });
    const token = login.body!.data.token;

    // Both replicas resolve the token and read the profile, and keep both.
    for (const url of [a, b, a, b]) {
      const me = await call(url, 'GET', '/v1/auth/me', token);
      expect(me.status).toBe(200);
      expect(me.body!.data.name).toBe('Before');
    }

    // A profile changed through A is what B answers on the next request.
    expect((await call(a, 'PATCH', '/v1/auth/me', token, { name: 'After' })).status).toBe(200);
    expect((await call(b, 'GET', '/v1/auth/me', token)).body!.data.name).toBe('After');
    expect((await call(a, 'GET', '/v1/auth/me', token)).body!.data.name).toBe('After');

    // A session ended through A is refused by B on the very next request.
    expect((await call(a, 'POST', '/v1/auth/logout', token)).status).toBe(204);
    const afterLogout = await call(b, 'GET', '/v1/auth/me', token);
    expect(afterLogout.status).toBe(401);
    expect((await call(a, 'GET', '/v1/auth/me', token)).status).toBe(401);
  });
});
