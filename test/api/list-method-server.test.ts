import type { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../apiserver/server.js';
import { createSelfSignedCertificate } from '../../security/certificates.js';

/** Answers every request with what the server made of it: method, target and body length. */
function echo(req: IncomingMessage, res: ServerResponse): void {
  let length = 0;
  req.on('data', (chunk: Buffer) => (length += chunk.length));
  req.on('end', () => {
    // Answered after a moment, so a pipelined request behind this one finds a response in flight.
    setTimeout(() => res.end(`${req.method} ${req.url} body=${length} from=${req.socket.remoteAddress}`), 5);
  });
}

/**
 * Sends `requests` on one connection, each once the answers to the previous arrived (a string may
 * hold several pipelined requests); answers the bodies.
 */
async function exchange(socket: net.Socket, requests: string[]): Promise<string[]> {
  const bodies: string[] = [];
  let received = '';
  let wake = () => {};
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
    wake();
  });
  for (const request of requests) {
    socket.write(request);
    let awaited = request.split(' HTTP/1.1\r\n').length - 1;
    while (awaited > 0) {
      const head = received.indexOf('\r\n\r\n');
      const length = head >= 0 ? /content-length: (\d+)/i.exec(received.slice(0, head)) : null;
      if (length && received.length >= head + 4 + Number(length[1])) {
        bodies.push(received.slice(head + 4, head + 4 + Number(length[1])));
        received = received.slice(head + 4 + Number(length[1]));
        awaited -= 1;
        continue;
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  socket.destroy();
  return bodies;
}

const REQUESTS = [
  'GET /first HTTP/1.1\r\nHost: x\r\n\r\n',
  'LIST /v1/secret/metadata/app HTTP/1.1\r\nHost: x\r\n\r\n',
  'POST /v1/secret/data/app HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nLIST ',
  'LIST /v1/sys/policies/acl?x=1 HTTP/1.1\r\nHost: x\r\n\r\n',
];
const ANSWERS = [
  'GET /first body=0 from=127.0.0.1',
  'GET /v1/secret/metadata/app?list=true body=0 from=127.0.0.1',
  'POST /v1/secret/data/app body=5 from=127.0.0.1',
  'GET /v1/sys/policies/acl?x=1&list=true body=0 from=127.0.0.1',
];

describe("a server taking Vault's LIST method", () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves LIST mid-connection as GET ?list=true, and the requests around it unchanged', async () => {
    server = await startServer(echo, { host: '127.0.0.1', port: 0, listMethod: true });
    const socket = net.connect(server.port, '127.0.0.1');
    expect(await exchange(socket, REQUESTS)).toEqual(ANSWERS);
  });

  it('does the same over TLS', async () => {
    const { cert, key } = createSelfSignedCertificate('localhost', ['127.0.0.1'], 1);
    server = await startServer(echo, { host: '127.0.0.1', port: 0, listMethod: true, tls: { cert, key } });
    const socket = tls.connect({ port: server.port, host: '127.0.0.1', ca: cert });
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    expect(await exchange(socket, REQUESTS)).toEqual(ANSWERS);
  });

  it('answers a LIST pipelined behind a request after that request, in order', async () => {
    server = await startServer(echo, { host: '127.0.0.1', port: 0, listMethod: true });
    const socket = net.connect(server.port, '127.0.0.1');
    expect(await exchange(socket, [REQUESTS[0]! + REQUESTS[1]!, REQUESTS[2]!])).toEqual(ANSWERS.slice(0, 3));
  });

  it('closes a taken-over connection left idle past the keep-alive timeout', async () => {
    server = await startServer(echo, { host: '127.0.0.1', port: 0, listMethod: true });
    server.server.keepAliveTimeout = 200;
    const socket = net.connect(server.port, '127.0.0.1');
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.on('data', () => {});
    socket.write(REQUESTS[1]!);
    await closed;
  });

  it('closes a taken-over connection when the server closes', async () => {
    server = await startServer(echo, { host: '127.0.0.1', port: 0, listMethod: true });
    const socket = net.connect(server.port, '127.0.0.1');
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.on('data', () => {});
    socket.write(REQUESTS[1]!);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.close();
    server = undefined;
    await closed;
  });
});
