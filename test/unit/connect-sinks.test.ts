import { describe, expect, it } from 'vitest';
import {
  createTableSql,
  jdbcSinkSettingsOf,
  rowOf,
  writeSql,
} from '../../connect/connectors/jdbc-sink/statements.js';
import { objectKeyOf } from '../../connect/connectors/s3-sink/task.js';
import { nextOffsetsOf } from '../../connect/sink-record.js';
import { sinkRecord } from '../fixtures/sink-record.js';

describe('committed offsets', () => {
  it('commits the offset after the last record of each partition', () => {
    const records = [
      sinkRecord({ offset: 3 }),
      sinkRecord({ offset: 5 }),
      sinkRecord({ partition: 1, offset: 0 }),
    ];
    expect(nextOffsetsOf(records)).toEqual([
      { topic: 'orders', partition: 0, offset: 6 },
      { topic: 'orders', partition: 1, offset: 1 },
    ]);
  });

  it('commits where a record was consumed, whatever topic a transform gave it', () => {
    const routed = sinkRecord({ topic: 'archive', originalTopic: 'orders', offset: 8 });
    expect(nextOffsetsOf([routed])).toEqual([{ topic: 'orders', partition: 0, offset: 9 }]);
  });
});

describe('the relational sink', () => {
  const upsert = jdbcSinkSettingsOf({
    'insert.mode': 'upsert',
    'pk.mode': 'record_key',
    'pk.fields': 'id',
    'table.name.format': 'sink_${topic}',
  });

  it('makes a primitive key the named key column, before the value fields', () => {
    const row = rowOf(sinkRecord({ key: 4, value: { item: 'pen', price: 1.5, tags: ['a'] } }), upsert)!;
    expect(row).toEqual({
      table: 'sink_orders',
      columns: [
        { name: 'id', sqlType: 'BIGINT' },
        { name: 'item', sqlType: 'TEXT' },
        { name: 'price', sqlType: 'DOUBLE PRECISION' },
        { name: 'tags', sqlType: 'JSONB' },
      ],
      values: [4, 'pen', 1.5, '["a"]'],
      keyColumns: ['id'],
    });
    expect(createTableSql(row)).toBe(
      'CREATE TABLE IF NOT EXISTS "sink_orders" ("id" BIGINT NOT NULL, "item" TEXT, "price" DOUBLE PRECISION, "tags" JSONB, PRIMARY KEY ("id"))',
    );
    expect(writeSql(row, 'upsert')).toBe(
      'INSERT INTO "sink_orders" ("id", "item", "price", "tags") VALUES ($1, $2, $3, $4) ON CONFLICT ("id") DO UPDATE SET "item" = EXCLUDED."item", "price" = EXCLUDED."price", "tags" = EXCLUDED."tags"',
    );
  });

  it('types the columns from an envelope\u2019s schema', () => {
    const row = rowOf(
      sinkRecord({
        value: { id: 1, qty: 2 },
        valueSchema: {
          type: 'struct',
          fields: [
            { field: 'id', type: 'int64' },
            { field: 'qty', type: 'int32' },
          ],
        },
      }),
      jdbcSinkSettingsOf({ 'pk.mode': 'record_value', 'pk.fields': 'id' }),
    )!;
    expect(row.columns).toEqual([
      { name: 'id', sqlType: 'BIGINT' },
      { name: 'qty', sqlType: 'INTEGER' },
    ]);
    expect(row.keyColumns).toEqual(['id']);
    expect(writeSql(row, 'insert')).toBe('INSERT INTO "orders" ("id", "qty") VALUES ($1, $2)');
  });

  it.each([
    ['a record without its key', sinkRecord({ value: { a: 1 } }), upsert, /has no key/],
    ['a value that is no object', sinkRecord({ key: 1, value: [1, 2] }), upsert, /not a JSON object/],
    [
      'a value without its key field',
      sinkRecord({ value: { a: 1 } }),
      jdbcSinkSettingsOf({ 'pk.mode': 'record_value', 'pk.fields': 'id' }),
      /primary key field id is missing/,
    ],
  ])('refuses %s', (_case, input, settings, message) => {
    expect(() => rowOf(input, settings)).toThrow(message);
  });

  it('skips tombstones and quotes names with quotes', () => {
    expect(rowOf(sinkRecord({ key: 1 }), upsert)).toBeUndefined();
    const row = rowOf(sinkRecord({ value: { 'we"ird': 1 } }), jdbcSinkSettingsOf({}))!;
    expect(writeSql(row, 'insert')).toBe('INSERT INTO "orders" ("we""ird") VALUES ($1)');
  });
});

describe('the object-storage sink', () => {
  it.each([
    ['topics', 'clicks', 0, 0, 'topics/clicks/partition=0/clicks+0+0000000000.json'],
    ['archive', 'a.b', 3, 1234, 'archive/a.b/partition=3/a.b+3+0000001234.json'],
  ])('names objects as Confluent does: %s %s %i %i', (dir, topic, partition, offset, key) => {
    expect(objectKeyOf(dir, topic, partition, offset)).toBe(key);
  });
});
