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
  cluster = await createPlatformCluster(app, bearer, { name: 'wire', auto_unseal: true });
  rootToken = await platformVaultToken(app, bearer, cluster.id, ['root']);
});
afterAll(async () => app?.close());

const send = (method: string, path: string, body?: string, token = rootToken) =>
  fetch(`${cluster.apiAddress}${path}`, {
    method,
    headers: { 'x-vault-token': token, 'content-type': 'application/json' },
    body,
  });

describe("the Vault API's wire format", () => {
  it.each([
    ['a malformed JSON body', 'POST', '/v1/secret/data/app', '{"data":', 400, ['failed to parse JSON input']],
    [
      'a body that is not an object',
      'POST',
      '/v1/secret/data/app',
      '[1]',
      400,
      ['the request body must be a JSON object'],
    ],
    ['an unknown path', 'GET', '/v1/nothing/here', undefined, 404, []],
    [
      'a path that is not valid percent-encoding',
      'GET',
      '/v1/secret/data/app%ZZ',
      undefined,
      400,
      ['the request path is not valid percent-encoded UTF-8: cannot decode app%ZZ'],
    ],
    ['a secret never written', 'GET', '/v1/secret/data/missing', undefined, 404, []],
    [
      'a duration that is not one',
      'POST',
      '/v1/auth/token/create',
      '{"ttl":"soon"}',
      400,
      ['ttl must be a duration: whole seconds or a string such as "1h30m"'],
    ],
  ])('answers %s with Vault’s status and errors list', async (_case, method, path, body, status, errors) => {
    const response = await send(method, path, body);
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual({ errors });
  });

  it.each([
    ['POST', '/v1/auth/token/lookup-self', 200, undefined],
    ['POST', '/v1/auth/token/renew-self', 200, undefined],
    ['POST', '/v1/transit/keys/bodiless', 204, undefined],
    ['POST', '/v1/transit/keys/bodiless/rotate', 200, undefined],
    [
      'DELETE',
      '/v1/secret/metadata/bodiless',
      204,
      ['POST', '/v1/secret/data/bodiless', '{"data":{"a":"b"}}'],
    ],
    [
      'DELETE',
      '/v1/sys/policy/bodiless',
      204,
      ['PUT', '/v1/sys/policy/bodiless', '{"policy":"path \\"a\\" { capabilities = [\\"read\\"] }"}'],
    ],
  ] as const)(
    'takes an empty body, {} and null on %s %s, as Vault clients send them',
    async (method, path, status, setup) => {
      for (const body of ['', '{}', 'null']) {
        if (setup) expect((await send(setup[0], setup[1], setup[2])).status).toBeLessThan(300);
        const response = await send(method, path, body);
        expect({ body, status: response.status }).toEqual({ body, status });
      }
    },
  );

  it('answers 413 for a body over the limit', async () => {
    const value = 'x'.repeat(app.config.http.bodyLimitBytes + 1);
    const response = await send('POST', '/v1/secret/data/big', JSON.stringify({ data: { value } }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ errors: ['request body too large'] });
  });
});

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

/** Sends raw bytes on a connection of their own; answers all that came back once the server closed it. */
async function exchangeUntilClosed(bytes: string): Promise<string> {
  const { hostname, port, pathname } = new URL(cluster.apiAddress);
  const socket = net.connect(Number(port), hostname);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
  socket.write(bytes.replaceAll('{base}', pathname));
  await new Promise((resolve) => socket.once('close', resolve));
  return received;
}

describe("Vault's LIST method", () => {
  it('lists secrets as GET ?list=true does, on a keep-alive connection between other requests', async () => {
    for (const name of ['alpha', 'beta']) {
      const written = await send(
        'POST',
        `/v1/secret/data/listed/${name}`,
        JSON.stringify({ data: { value: name } }),
      );
      expect(written.status).toBe(200);
    }
    const body = JSON.stringify({ data: { value: 'gamma' } });
    const headers = `Host: x\r\nX-Vault-Token: ${rootToken}\r\n`;
    // A GET first: node's parser serves the connection until the LIST, which it refuses.
    const responses = await rawExchange([
      `GET {base}/v1/secret/data/listed/alpha HTTP/1.1\r\n${headers}\r\n`,
      `LIST {base}/v1/secret/metadata/listed HTTP/1.1\r\n${headers}\r\n`,
      `POST {base}/v1/secret/data/listed/gamma HTTP/1.1\r\n${headers}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      `LIST {base}/v1/secret/metadata/listed HTTP/1.1\r\n${headers}\r\n`,
    ]);
    expect(responses.map((response) => response.slice(0, 12))).toEqual([
      'HTTP/1.1 200',
      'HTTP/1.1 200',
      'HTTP/1.1 200',
      'HTTP/1.1 200',
    ]);
    const keysOf = (response: string) =>
      (JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { data: { keys: string[] } }).data
        .keys;
    expect(keysOf(responses[1]!)).toEqual(['alpha', 'beta']);
    expect(keysOf(responses[3]!)).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('serves a LIST pipelined behind another request in one packet, in order', async () => {
    const headers = `Host: x\r\nX-Vault-Token: ${rootToken}\r\n`;
    const response = await exchangeUntilClosed(
      `GET {base}/v1/sys/seal-status HTTP/1.1\r\n${headers}\r\n` +
        `LIST {base}/v1/secret/metadata/listed HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`,
    );
    const statuses = response.match(/HTTP\/1\.1 \d{3}/g);
    expect(statuses).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(response).toContain('"sealed":false');
    expect(response).toContain('"keys":["alpha","beta"');
  });

  it('still refuses a method nobody knows with 400 and closes the connection', async () => {
    const response = await exchangeUntilClosed(`BREW {base}/v1/sys/seal-status HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(response).toMatch(/^HTTP\/1\.1 400 Bad Request\r\nConnection: close/);
  });
});
