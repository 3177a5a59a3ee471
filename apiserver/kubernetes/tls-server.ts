import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import type { RunningServer } from '../server.js';
import type { ServingCertificate } from './serving-certificate.js';

export interface TlsServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  certificate: ServingCertificate;
  /** In-flight requests (watches included) get this long once closing starts; default 10 s. */
  gracePeriodMs?: number;
}

/**
 * Serves `app` over HTTPS: what the Kubernetes API needs, because kubectl sends its bearer token
 * only over TLS. Closing works as for the plain listener: stop accepting, let requests finish
 * within the grace period, then cut what remains.
 */
export async function startTlsServer(
  app: RequestListener,
  options: TlsServerOptions,
): Promise<RunningServer> {
  const server = https.createServer({ key: options.certificate.key, cert: options.certificate.cert }, app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `https://${host}:${address.port}`,
    port: address.port,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        const deadline = setTimeout(() => server.closeAllConnections(), options.gracePeriodMs ?? 10_000);
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
