/**
 * Connectors whose configuration this runtime validates and keeps but whose tasks it cannot run,
 * because they need a server the platform does not offer (MongoDB for Debezium's MongoDB source,
 * Elasticsearch or OpenSearch for the search-index sink). Run, such a connector fails with a
 * trace that says so; the servers it names are really tried first, so that what the trace says
 * of them is true.
 */
import net from 'node:net';
import { ELASTICSEARCH_SINK } from './connectors/elasticsearch-sink/index.js';
import { listOf, type ConnectorPlugin } from './connectors/plugin.js';
import { MONGODB_SOURCE } from './connectors/mongodb-source/index.js';

const PROBE_TIMEOUT_MS = 3_000;

export class UnavailableConnectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnavailableConnectorError';
  }
}

export interface ServerAddress {
  host: string;
  port: number;
}

const addressText = (address: ServerAddress) =>
  address.host.includes(':') ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;

/** The hosts of a MongoDB connection string (several for a replica set), 27017 where none is given. */
export function mongoAddressesOf(connectionString: string | undefined): ServerAddress[] {
  const match = /^mongodb(?:\+srv)?:\/\/(?:[^@/]*@)?([^/?]+)/.exec(connectionString ?? '');
  if (!match) return [];
  return match[1]!.split(',').map((hostPort) => {
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(hostPort);
    if (bracketed) return { host: bracketed[1]!, port: Number(bracketed[2] ?? 27017) };
    const [host, port] = hostPort.split(':');
    return { host: decodeURIComponent(host!), port: Number(port || 27017) };
  });
}

/** The servers of the search sink's `connection.url` list. */
export function searchAddressesOf(urls: string | undefined): ServerAddress[] {
  return listOf(urls).flatMap((text) => {
    try {
      const url = new URL(text);
      const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
      return [{ host: url.hostname.replace(/^\[|\]$/g, ''), port }];
    } catch {
      return [];
    }
  });
}

/** Whether something accepts a TCP connection at the address. */
export function accepts(address: ServerAddress, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address.host, port: address.port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

interface Unavailable {
  addressesOf(config: Record<string, string>): ServerAddress[];
  server: string;
  key: string;
  offer: string;
}

const UNAVAILABLE = new Map<ConnectorPlugin, Unavailable>([
  [
    MONGODB_SOURCE,
    {
      addressesOf: (config) => mongoAddressesOf(config['mongodb.connection.string']),
      server: 'MongoDB server',
      key: 'mongodb.connection.string',
      offer: 'this platform runs no MongoDB',
    },
  ],
  [
    ELASTICSEARCH_SINK,
    {
      addressesOf: (config) => searchAddressesOf(config['connection.url']),
      server: 'Elasticsearch or OpenSearch server',
      key: 'connection.url',
      offer: 'this platform runs no search service',
    },
  ],
]);

/** Whether the plugin's tasks cannot run here. */
export function isUnavailable(plugin: ConnectorPlugin | undefined): boolean {
  return plugin !== undefined && UNAVAILABLE.has(plugin);
}

/** Why the connector cannot run, having tried the servers its configuration names. */
export async function unavailableError(
  plugin: ConnectorPlugin,
  config: Record<string, string>,
): Promise<UnavailableConnectorError> {
  const unavailable = UNAVAILABLE.get(plugin);
  if (!unavailable) return new UnavailableConnectorError(`${plugin.class} runs here`);
  const addresses = unavailable.addressesOf(config);
  const answering = (
    await Promise.all(addresses.map(async (address) => ((await accepts(address)) ? [address] : [])))
  ).flat();
  if (answering.length === 0) {
    return new UnavailableConnectorError(
      `no ${unavailable.server} is reachable at ${addresses.map(addressText).join(', ') || 'the configured address'}: ` +
        `${unavailable.offer}; point ${unavailable.key} at one`,
    );
  }
  return new UnavailableConnectorError(
    `a server accepts connections at ${answering.map(addressText).join(', ')}, but this connector runtime ` +
      `cannot run ${plugin.class} tasks (it keeps and validates their configuration only); ` +
      `run the connector on a Kafka Connect cluster of your own`,
  );
}
