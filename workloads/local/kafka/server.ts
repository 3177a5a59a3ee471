import tls from 'node:tls';
import type { KafkaCluster } from './cluster.js';
import { Connection } from './connection.js';

export interface ListenOptions {
  /** PEM key and certificate (issued by the platform's streaming authority). */
  tls: { key: string; cert: string };
  /** The address the listeners bind; the brokers' `host` is what clients are told. */
  bindHost?: string;
}

/**
 * Opens one TLS listener (TLS 1.2+) per broker id of `cluster` and starts its maintenance;
 * closing the cluster closes the listeners and every connection.
 */
export async function listen(cluster: KafkaCluster, options: ListenOptions): Promise<void> {
  const servers: tls.Server[] = [];
  const connections = new Set<Connection>();
  let nextConnectionId = 1;
  cluster.onClose(async () => {
    for (const connection of connections) connection.destroy();
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  });
  for (const broker of cluster.brokers) {
    const server = tls.createServer(
      { key: options.tls.key, cert: options.tls.cert, minVersion: 'TLSv1.2' },
      (socket) => {
        const connection = new Connection(cluster, socket, broker.nodeId, nextConnectionId++);
        connections.add(connection);
        socket.once('close', () => connections.delete(connection));
      },
    );
    server.on('tlsClientError', (error) =>
      cluster.logger.debug({ err: error.message, broker: broker.nodeId }, 'TLS handshake failed'),
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: broker.port, host: options.bindHost ?? '0.0.0.0' }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    servers.push(server);
  }
  cluster.start();
}
