import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ELASTICSEARCH_SINK } from '../../connect/connectors/elasticsearch-sink/index.js';
import { MONGODB_SOURCE } from '../../connect/connectors/mongodb-source/index.js';
import {
  isUnavailable,
  mongoAddressesOf,
  searchAddressesOf,
  unavailableError,
} from '../../connect/unavailable-connectors.js';

describe('the servers a connector that cannot run here names', () => {
  it.each([
    ['mongodb://db', [{ host: 'db', port: 27017 }]],
    [
      'mongodb://user:p%40ss@a:27018,b,[::1]:27019/shop?replicaSet=rs0',
      [
        { host: 'a', port: 27018 },
        { host: 'b', port: 27017 },
        { host: '::1', port: 27019 },
      ],
    ],
    ['mongodb+srv://cluster.example', [{ host: 'cluster.example', port: 27017 }]],
    ['http://db', []],
  ])('%s: %j', (connectionString, addresses) => {
    expect(mongoAddressesOf(connectionString)).toEqual(addresses);
  });

  it('reads the search sink\u2019s URL list with the schemes\u2019 ports', () => {
    expect(searchAddressesOf('http://a:9200, https://b,http://c, nonsense')).toEqual([
      { host: 'a', port: 9200 },
      { host: 'b', port: 443 },
      { host: 'c', port: 80 },
    ]);
  });

  it('knows which plugins cannot run', () => {
    expect(isUnavailable(MONGODB_SOURCE)).toBe(true);
    expect(isUnavailable(ELASTICSEARCH_SINK)).toBe(true);
    expect(isUnavailable(undefined)).toBe(false);
  });
});

describe('why such a connector fails', () => {
  let listening: net.Server;
  let open: number;
  let closed: number;
  beforeAll(async () => {
    const free = net.createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    closed = (free.address() as net.AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    listening = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    open = (listening.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => listening.close(resolve)));

  it('says no server is reachable when nothing answers there', async () => {
    const error = await unavailableError(MONGODB_SOURCE, {
      'mongodb.connection.string': `mongodb://u:secret@127.0.0.1:${closed}/?replicaSet=rs0`,
    });
    expect(error.message).toBe(
      `no MongoDB server is reachable at 127.0.0.1:${closed}: this platform runs no MongoDB; point mongodb.connection.string at one`,
    );
    expect(error.message).not.toContain('secret');
  });

  it('says the runtime cannot run the connector when a server does answer', async () => {
    const error = await unavailableError(ELASTICSEARCH_SINK, {
      'connection.url': `http://127.0.0.1:${closed},http://127.0.0.1:${open}`,
    });
    expect(error.message).toContain(`a server accepts connections at 127.0.0.1:${open}, but`);
    expect(error.message).toContain(
      'cannot run io.confluent.connect.elasticsearch.ElasticsearchSinkConnector tasks',
    );
  });
});
