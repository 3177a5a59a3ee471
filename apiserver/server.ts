import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import { ApiResponse } from '../observability/http-response.js';
import { serveListMethod } from './list-method.js';

/** In-flight requests get this long to finish once closing starts; then their connections are cut. */
const DEFAULT_GRACE_MS = 10_000;

export interface RunningServer {
  url: string;
  port: number;
  /** The node server, for handlers of upgrades (the event stream). */
  server: http.Server;
  /** Stops accepting, lets in-flight requests finish, closes keep-alive connections. */
  close(): Promise<void>;
}

export interface ServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  gracePeriodMs?: number;
  /** Serve HTTPS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
  /** Take Vault's `LIST` method as `GET …?list=true` (see list-method.ts). */
  listMethod?: boolean;
}

function urlOf(address: AddressInfo, secure: boolean): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${secure ? 'https' : 'http'}://${host}:${address.port}`;
}

/** Serves `app` (an express app or any request listener) on `host:port`, over TLS when `tls` is given. */
export async function startServer(app: RequestListener, options: ServerOptions): Promise<RunningServer> {
  // Responses take their fixed headers as one list with the status line (see ApiResponse).
  const server = options.tls
    ? https.createServer({ key: options.tls.key, cert: options.tls.cert, ServerResponse: ApiResponse }, app)
    : http.createServer({ ServerResponse: ApiResponse }, app);
  let closing: Promise<void> | undefined;
  if (options.listMethod) serveListMethod(server);

  // While closing, a response still in flight is the last on its connection. One listener for
  // every response (a response finishes once): a closure per request would cost an allocation each.
  const closeIdleIfClosing = () => {
    if (closing) setImmediate(() => server.closeIdleConnections());
  };
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.on('finish', closeIdleIfClosing);
    if (closing && !res.headersSent) res.setHeader('Connection', 'close');
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;

  return {
    url: urlOf(address, options.tls !== undefined),
    port: address.port,
    server,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        const deadline = setTimeout(
          () => server.closeAllConnections(),
          options.gracePeriodMs ?? DEFAULT_GRACE_MS,
        );
        server.close((error) => {
          clearTimeout(deadline);
          if (error) reject(error);
          else resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
