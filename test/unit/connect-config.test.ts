import { describe, expect, it } from 'vitest';
import { ELASTICSEARCH_SINK } from '../../connect/connectors/elasticsearch-sink/index.js';
import { isSecretKey, pluginOf, validateConnectorConfig } from '../../connect/connector-plugins.js';
import { JDBC_SINK } from '../../connect/connectors/jdbc-sink/index.js';
import { MONGODB_SOURCE } from '../../connect/connectors/mongodb-source/index.js';
import { MYSQL_SOURCE } from '../../connect/connectors/mysql-source/index.js';
import { POSTGRES_SOURCE } from '../../connect/connectors/postgres-source/index.js';
import { S3_SINK } from '../../connect/connectors/s3-sink/index.js';

const jdbc = {
  name: 'orders-db',
  'connector.class': JDBC_SINK.class,
  topics: 'orders',
  'connection.url': 'jdbc:postgresql://127.0.0.1:5432/shop',
};
const s3 = {
  name: 'archive',
  'connector.class': S3_SINK.class,
  topics: 'clicks',
  's3.bucket.name': 'b',
  'flush.size': '3',
};
const binlog = {
  name: 'orders-capture',
  'connector.class': MYSQL_SOURCE.class,
  'database.hostname': 'db',
  'database.user': 'capture',
  'topic.prefix': 'shop',
};
const capture = {
  name: 'shop-capture',
  'connector.class': POSTGRES_SOURCE.class,
  'database.hostname': 'db',
  'database.user': 'capture',
  'database.dbname': 'shop',
  'topic.prefix': 'shop',
};
const mongo = {
  name: 'carts',
  'connector.class': MONGODB_SOURCE.class,
  'mongodb.connection.string': 'mongodb://db:27017/?replicaSet=rs0',
  'topic.prefix': 'carts',
};
const search = {
  name: 'orders-index',
  'connector.class': ELASTICSEARCH_SINK.class,
  topics: 'orders',
  'connection.url': 'http://search:9200',
};

function errorsOf(plugin: typeof JDBC_SINK, config: Record<string, string>): Record<string, string[]> {
  const infos = validateConnectorConfig(plugin, config);
  return Object.fromEntries(
    infos.configs
      .filter((info) => info.value.errors.length > 0)
      .map((info) => [info.value.name, info.value.errors]),
  );
}

describe('connector configuration validation', () => {
  it.each<[string, typeof JDBC_SINK, Record<string, string>, string[]]>([
    ['a complete JDBC sink', JDBC_SINK, jdbc, []],
    ['a JDBC sink without its URL', JDBC_SINK, { ...jdbc, 'connection.url': '' }, ['connection.url']],
    ['a MySQL URL', JDBC_SINK, { ...jdbc, 'connection.url': 'jdbc:mysql://db/shop' }, []],
    ['a MariaDB URL', JDBC_SINK, { ...jdbc, 'connection.url': 'jdbc:mariadb://db:3307/shop' }, []],
    [
      'an Oracle URL',
      JDBC_SINK,
      { ...jdbc, 'connection.url': 'jdbc:oracle:thin:@db:1521/x' },
      ['connection.url'],
    ],
    ['an unknown insert mode', JDBC_SINK, { ...jdbc, 'insert.mode': 'merge' }, ['insert.mode']],
    ['upsert without a key', JDBC_SINK, { ...jdbc, 'insert.mode': 'upsert' }, ['pk.mode']],
    ['record_value keys without fields', JDBC_SINK, { ...jdbc, 'pk.mode': 'record_value' }, ['pk.fields']],
    ['auto.create that is no boolean', JDBC_SINK, { ...jdbc, 'auto.create': 'yes' }, ['auto.create']],
    ['no topics', JDBC_SINK, { ...jdbc, topics: '' }, ['topics']],
    ['tasks.max 0', JDBC_SINK, { ...jdbc, 'tasks.max': '0' }, ['tasks.max']],
    ['a complete S3 sink', S3_SINK, s3, []],
    ['flush.size that is no number', S3_SINK, { ...s3, 'flush.size': 'many' }, ['flush.size']],
    ['a store.url that is no URL', S3_SINK, { ...s3, 'store.url': 'minio:9000' }, ['store.url']],
    ['a complete MySQL source', MYSQL_SOURCE, binlog, []],
    [
      'a MySQL source without its host',
      MYSQL_SOURCE,
      { ...binlog, 'database.hostname': '' },
      ['database.hostname'],
    ],
    ['server id 0', MYSQL_SOURCE, { ...binlog, 'database.server.id': '0' }, ['database.server.id']],
    ['an unknown snapshot mode', MYSQL_SOURCE, { ...binlog, 'snapshot.mode': 'always' }, ['snapshot.mode']],
    [
      'a table pattern that is none',
      MYSQL_SOURCE,
      { ...binlog, 'table.include.list': 'shop.(x' },
      ['table.include.list'],
    ],
    ['a prefix with a slash', MYSQL_SOURCE, { ...binlog, 'topic.prefix': 'a/b' }, ['topic.prefix']],
    ['a complete PostgreSQL source', POSTGRES_SOURCE, capture, []],
    ['test_decoding', POSTGRES_SOURCE, { ...capture, 'plugin.name': 'test_decoding' }, []],
    ['decoderbufs', POSTGRES_SOURCE, { ...capture, 'plugin.name': 'decoderbufs' }, ['plugin.name']],
    ['Debezium\u2019s older never', POSTGRES_SOURCE, { ...capture, 'snapshot.mode': 'never' }, []],
    [
      'an unknown snapshot mode',
      POSTGRES_SOURCE,
      { ...capture, 'snapshot.mode': 'sometimes' },
      ['snapshot.mode'],
    ],
    [
      'a filtered publication',
      POSTGRES_SOURCE,
      { ...capture, 'publication.autocreate.mode': 'filtered', 'publication.name': 'orders_pub' },
      [],
    ],
    [
      'an unknown autocreate mode',
      POSTGRES_SOURCE,
      { ...capture, 'publication.autocreate.mode': 'some' },
      ['publication.autocreate.mode'],
    ],
    [
      'a publication name with capitals',
      POSTGRES_SOURCE,
      { ...capture, 'publication.name': 'Pub' },
      ['publication.name'],
    ],
    ['a complete MongoDB source', MONGODB_SOURCE, mongo, []],
    [
      'a MongoDB URL of http',
      MONGODB_SOURCE,
      { ...mongo, 'mongodb.connection.string': 'http://db' },
      ['mongodb.connection.string'],
    ],
    ['a complete search sink', ELASTICSEARCH_SINK, search, []],
    [
      'a search URL without scheme',
      ELASTICSEARCH_SINK,
      { ...search, 'connection.url': 'search:9200' },
      ['connection.url'],
    ],
    ['key.ignore that is no boolean', ELASTICSEARCH_SINK, { ...search, 'key.ignore': 'no' }, ['key.ignore']],
  ])('%s: errors on %j', (_case, plugin, config, keys) => {
    const errors = errorsOf(plugin, config);
    expect(Object.keys(errors).sort()).toEqual([...keys].sort());
    expect(validateConnectorConfig(plugin, config).error_count).toBe(
      Object.values(errors).reduce((count, list) => count + list.length, 0),
    );
  });

  it('answers a password as [hidden] and lists the groups', () => {
    const infos = validateConnectorConfig(JDBC_SINK, { ...jdbc, 'connection.password': 's3cret' });
    expect(infos.configs.find((info) => info.value.name === 'connection.password')!.value.value).toBe(
      '[hidden]',
    );
    expect(infos.groups).toEqual([
      'Common',
      'Error Handling',
      'Connection',
      'Data Mapping',
      'Writes',
      'DDL Support',
      'Transforms',
      'Predicates',
    ]);
  });

  it('lists each transform alias\u2019s keys in its group and counts their errors', () => {
    const infos = validateConnectorConfig(JDBC_SINK, {
      ...jdbc,
      transforms: 'route,unknown',
      'transforms.route.type': 'org.apache.kafka.connect.transforms.RegexRouter',
      'transforms.route.regex': '(.*)',
      'transforms.unknown.type': 'com.example.Missing',
    });
    expect(infos.groups).toContain('Transforms: route');
    const errors = Object.fromEntries(
      infos.configs
        .filter((info) => info.value.errors.length > 0)
        .map((info) => [info.value.name, info.value.errors]),
    );
    expect(errors).toEqual({
      'transforms.route.replacement': [
        'Missing required configuration "transforms.route.replacement" which has no default value.',
      ],
      'transforms.unknown.type': [
        'Invalid value com.example.Missing for configuration transforms.unknown.type: Class com.example.Missing could not be found.',
      ],
    });
    expect(infos.error_count).toBe(2);
  });
});

describe('plugins and secrets', () => {
  it.each([
    ['io.confluent.connect.jdbc.JdbcSinkConnector', JDBC_SINK],
    ['JdbcSinkConnector', JDBC_SINK],
    ['JdbcSink', JDBC_SINK],
    ['S3SinkConnector', S3_SINK],
    ['io.debezium.connector.postgresql.PostgresConnector', POSTGRES_SOURCE],
    ['io.debezium.connector.mysql.MySqlConnector', MYSQL_SOURCE],
    ['MongoDbConnector', MONGODB_SOURCE],
    ['ElasticsearchSink', ELASTICSEARCH_SINK],
    ['io.debezium.connector.oracle.OracleConnector', undefined],
  ])('%s names %s', (name, plugin) => {
    expect(pluginOf(name)).toBe(plugin);
  });

  it.each([
    [JDBC_SINK, 'connection.password', true],
    [JDBC_SINK, 'connection.user', false],
    [S3_SINK, 'aws.secret.access.key', true],
    [S3_SINK, 'aws.access.key.id', false],
    [MYSQL_SOURCE, 'database.password', true],
    [MONGODB_SOURCE, 'mongodb.connection.string', true],
    [MONGODB_SOURCE, 'mongodb.password', true],
    [ELASTICSEARCH_SINK, 'connection.password', true],
    [ELASTICSEARCH_SINK, 'connection.username', false],
    [undefined, 'database.password', true],
    [undefined, 'ssl.key', true],
    [undefined, 'topics', false],
    [JDBC_SINK, 'value.converter.basic.auth.user.info', true],
    [JDBC_SINK, 'key.converter.schema.registry.basic.auth.user.info', true],
    [JDBC_SINK, 'value.converter.schema.registry.url', false],
  ])('%# %s is secret: %s', (plugin, key, secret) => {
    expect(isSecretKey(plugin, key)).toBe(secret);
  });
});
