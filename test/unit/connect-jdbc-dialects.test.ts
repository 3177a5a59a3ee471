import { describe, expect, it } from 'vitest';
import { dialectOf, MYSQL_DIALECT, POSTGRES_DIALECT } from '../../connect/connectors/jdbc-sink/dialects.js';
import {
  createTableSql,
  databaseConnectionOf,
  jdbcSinkSettingsOf,
  postgresConnectionOf,
  rowOf,
  writeSql,
} from '../../connect/connectors/jdbc-sink/statements.js';
import type { SinkRecord } from '../../connect/sink-record.js';
import { sinkRecord } from '../fixtures/sink-record.js';

const upsertByKey = jdbcSinkSettingsOf({
  'insert.mode': 'upsert',
  'pk.mode': 'record_key',
  'pk.fields': 'id',
});

describe('the dialect of a JDBC URL', () => {
  it.each([
    ['jdbc:postgresql://db/shop', POSTGRES_DIALECT],
    ['jdbc:mysql://db/shop', MYSQL_DIALECT],
    ['jdbc:mariadb://db:3307/shop', MYSQL_DIALECT],
    ['jdbc:sqlserver://db;databaseName=shop', undefined],
    [undefined, undefined],
  ])('%s is %s', (url, dialect) => {
    expect(dialectOf(url)).toBe(dialect);
  });

  it.each([
    ['jdbc:mysql://db.example/shop', {}, { host: 'db.example', port: 3306, database: 'shop' }],
    [
      'jdbc:mariadb://db:3307/shop?user=a&password=b',
      {},
      { host: 'db', port: 3307, database: 'shop', user: 'a', password: 'b' },
    ],
    [
      'jdbc:mysql://db/shop?user=a',
      { 'connection.user': 'u', 'connection.password': 'p' },
      { host: 'db', port: 3306, database: 'shop', user: 'u', password: 'p' },
    ],
    ['jdbc:postgresql://db/shop', {}, { host: 'db', port: 5432, database: 'shop' }],
    ['jdbc:postgresql://db.example:6432/shop', {}, { host: 'db.example', port: 6432, database: 'shop' }],
    [
      'jdbc:postgresql://db/shop?user=a&password=b',
      {},
      { host: 'db', port: 5432, database: 'shop', user: 'a', password: 'b' },
    ],
    [
      'jdbc:postgresql://db/shop?user=a',
      { 'connection.user': 'u', 'connection.password': 'p' },
      { host: 'db', port: 5432, database: 'shop', user: 'u', password: 'p' },
    ],
  ])('%s connects to %j', (url, extra, connection) => {
    const config = { 'connection.url': url, ...extra };
    expect(databaseConnectionOf(config)).toEqual(connection);
    // The PostgreSQL sink reads its URLs the same way.
    if (url.startsWith('jdbc:postgresql:')) expect(postgresConnectionOf(config)).toEqual(connection);
  });

  it('keeps the PostgreSQL sink on PostgreSQL URLs', () => {
    expect(() => postgresConnectionOf({ 'connection.url': 'jdbc:mysql://db/shop' })).toThrow(/unsupported/);
  });
});

describe('MySQL and MariaDB statements', () => {
  it.each<[string, Partial<SinkRecord>, ReturnType<typeof jdbcSinkSettingsOf>, string, string]>([
    [
      'a numeric key',
      { key: 4, value: { item: 'pen', price: 1.5, tags: ['a'], ok: true } },
      upsertByKey,
      'CREATE TABLE IF NOT EXISTS `orders` (`id` BIGINT NOT NULL, `item` TEXT, `price` DOUBLE, `tags` JSON, `ok` BOOLEAN, PRIMARY KEY (`id`))',
      'INSERT INTO `orders` (`id`, `item`, `price`, `tags`, `ok`) VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE `item` = VALUES(`item`), `price` = VALUES(`price`), `tags` = VALUES(`tags`), `ok` = VALUES(`ok`)',
    ],
    [
      'a text key, which MySQL indexes only with a length',
      { key: { sku: 'a-1' }, value: { name: 'pen' } },
      jdbcSinkSettingsOf({ 'insert.mode': 'upsert', 'pk.mode': 'record_key' }),
      'CREATE TABLE IF NOT EXISTS `orders` (`sku` VARCHAR(255) NOT NULL, `name` TEXT, PRIMARY KEY (`sku`))',
      'INSERT INTO `orders` (`sku`, `name`) VALUES (?, ?) ON DUPLICATE KEY UPDATE `name` = VALUES(`name`)',
    ],
    [
      'a row that is all key',
      { key: { a: 'x', b: 2 }, value: {} },
      jdbcSinkSettingsOf({ 'insert.mode': 'upsert', 'pk.mode': 'record_key' }),
      'CREATE TABLE IF NOT EXISTS `orders` (`a` VARCHAR(255) NOT NULL, `b` BIGINT NOT NULL, PRIMARY KEY (`a`, `b`))',
      'INSERT INTO `orders` (`a`, `b`) VALUES (?, ?) ON DUPLICATE KEY UPDATE `a` = `a`',
    ],
    [
      'an envelope with bytes and small integers, inserted',
      {
        value: { id: 1, tiny: 2, blob: 'AQI=' },
        valueSchema: {
          type: 'struct',
          fields: [
            { field: 'id', type: 'int32' },
            { field: 'tiny', type: 'int8' },
            { field: 'blob', type: 'bytes' },
          ],
        },
      },
      jdbcSinkSettingsOf({ 'table.name.format': 'we`ird_${topic}' }),
      'CREATE TABLE IF NOT EXISTS `we``ird_orders` (`id` INT, `tiny` TINYINT, `blob` BLOB)',
      'INSERT INTO `we``ird_orders` (`id`, `tiny`, `blob`) VALUES (?, ?, ?)',
    ],
  ])('%s', (_case, fields, settings, create, write) => {
    const row = rowOf(sinkRecord(fields), settings, MYSQL_DIALECT)!;
    expect(createTableSql(row, MYSQL_DIALECT)).toBe(create);
    expect(writeSql(row, settings.insertMode, MYSQL_DIALECT)).toBe(write);
  });

  it('passes JSON as text and bytes as a buffer', () => {
    const row = rowOf(
      sinkRecord({
        value: { doc: { a: [1] }, raw: 'AQI=' },
        valueSchema: { type: 'struct', fields: [{ field: 'raw', type: 'bytes' }] },
      }),
      jdbcSinkSettingsOf({}),
      MYSQL_DIALECT,
    )!;
    expect(row.values).toEqual(['{"a":[1]}', Buffer.from([1, 2])]);
  });

  it('writes the same row for PostgreSQL in its own dialect', () => {
    const pgRow = rowOf(
      sinkRecord({ key: { sku: 'a' }, value: { n: 1 } }),
      jdbcSinkSettingsOf({ 'insert.mode': 'upsert', 'pk.mode': 'record_key' }),
    )!;
    expect(createTableSql(pgRow)).toBe(
      'CREATE TABLE IF NOT EXISTS "orders" ("sku" TEXT NOT NULL, "n" BIGINT, PRIMARY KEY ("sku"))',
    );
    expect(writeSql(pgRow, 'upsert')).toBe(
      'INSERT INTO "orders" ("sku", "n") VALUES ($1, $2) ON CONFLICT ("sku") DO UPDATE SET "n" = EXCLUDED."n"',
    );
  });
});
