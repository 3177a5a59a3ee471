import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPlatformCluster,
  platformUser,
  platformVaultToken,
  type PlatformCluster,
} from '../fixtures/vault-api-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

let app: TestPlatform;
let cluster: PlatformCluster;
let rootToken: string;

beforeAll(async () => {
  app = await startPlatform({ userAgent: 'vault-api-test' });
  const bearer = await platformUser(app);
  cluster = await createPlatformCluster(app, bearer, { name: 'lists', auto_unseal: true });
  rootToken = await platformVaultToken(app, bearer, cluster.id, ['root']);
  for (const name of ['alpha', 'beta']) {
    const written = await fetch(`${cluster.apiAddress}/v1/secret/data/app/${name}`, {
      method: 'POST',
      headers: { 'x-vault-token': rootToken, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { value: name } }),
    });
    expect(written.status).toBe(200);
  }
});
afterAll(async () => app?.close());

/**
 * Sends raw HTTP/1.1 requests one after another on one keep-alive connection, each once the
 * previous answer is complete; answers the raw responses.
 */
async function rawExchange(requests: string[]): Promise<string[]> {
  const { hostname, port, pathname } = new URL(cluster.apiAddress);
  const socket = net.connect(Number(port), hostname);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
  await new Promise((resolve) => socket.once('connect', resolve));
  const complete = (text: string) => {
    const head = text.indexOf('\r\n\r\n');
    const length = /content-length: (\d+)/i.exec(text.slice(0, head));
    return head >= 0 && length !== null && text.length >= head + 4 + Number(length[1]);
  };
  const responses: string[] = [];
  try {
    for (const request of requests) {
      received = '';
      socket.write(request.replaceAll('{base}', pathname));
      const deadline = Date.now() + 5000;
      while (!complete(received) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      responses.push(received);
    }
  } finally {
    socket.destroy();
  }
  return responses;
}

describe("Vault's LIST method", () => {
  it('lists secrets as GET ?list=true does, on a keep-alive connection between other requests', async () => {
    const body = JSON.stringify({ data: { value: 'gamma' } });
    const headers = `Host: x\r\nX-Vault-Token: ${rootToken}\r\n`;
    const responses = await rawExchange([
      `LIST {base}/v1/secret/metadata/app HTTP/1.1\r\n${headers}\r\n`,
      `POST {base}/v1/secret/data/app/gamma HTTP/1.1\r\n${headers}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      `LIST {base}/v1/secret/metadata/app HTTP/1.1\r\n${headers}\r\n`,
    ]);
    expect(responses.map((response) => response.slice(0, 12))).toEqual([
      'HTTP/1.1 200',
      'HTTP/1.1 200',
      'HTTP/1.1 200',
    ]);
    const keysOf = (response: string) =>
      (JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { data: { keys: string[] } }).data
        .keys;
    expect(keysOf(responses[0]!)).toEqual(['alpha', 'beta']);
    expect(keysOf(responses[2]!)).toEqual(['alpha', 'beta', 'gamma']);
  });
});
