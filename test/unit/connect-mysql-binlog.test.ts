import { describe, expect, it } from 'vitest';
import {
  mysqlColumnSchemaOf,
  BinlogTransactions,
  captures,
  jsonValueOf,
  tableFilterOf,
  type BinlogEventLike,
} from '../../connect/connectors/mysql-source/binlog.js';

const tableMap = {
  7: { parentSchema: 'shop', tableName: 'orders' },
  8: { parentSchema: 'shop', tableName: 'audit' },
};

/** An event as zongji gives it: its name, where it ends, and its own fields. */
function event(name: string, nextPosition: number, fields: Partial<BinlogEventLike> = {}): BinlogEventLike {
  return {
    getEventName: () => name,
    timestamp: 1_700_000_000_000,
    nextPosition,
    size: 40,
    tableMap,
    ...fields,
  };
}

describe('the tables a MySQL source captures', () => {
  it.each([
    [{}, 'shop', 'orders', true],
    [{}, 'mysql', 'user', false],
    [{ 'database.include.list': 'shop' }, 'shop', 'orders', true],
    [{ 'database.include.list': 'shop' }, 'shopping', 'orders', false],
    [{ 'database.include.list': 'shop.*' }, 'shopping', 'orders', true],
    [{ 'table.include.list': 'shop.orders' }, 'shop', 'orders', true],
    [{ 'table.include.list': 'shop.orders' }, 'shop', 'orders_old', false],
    [{ 'table.include.list': 'shop\\.order.*,crm.people' }, 'crm', 'people', true],
    [{ 'table.include.list': 'mysql.user' }, 'mysql', 'user', true],
    [{ 'database.include.list': 'crm', 'table.include.list': 'shop.orders' }, 'shop', 'orders', false],
  ])('%j: %s.%s %s', (config, db, table, captured) => {
    expect(captures(tableFilterOf(config), db, table)).toBe(captured);
  });
});

describe('binlog values as JSON', () => {
  it.each<[unknown, unknown]>([
    [null, null],
    [undefined, null],
    [Buffer.from([1, 2]), 'AQI='],
    [new Date('2024-01-02T03:04:05Z'), '2024-01-02T03:04:05.000Z'],
    [new Date('invalid'), null],
    [12n, 12],
    [9007199254740993n, '9007199254740993'],
    ['3.50', '3.50'],
    [1.5, 1.5],
    [{ a: [1, 2n] }, '{"a":[1,"2"]}'],
  ])('%o reads as %o', (value, json) => {
    expect(jsonValueOf(value)).toEqual(json);
  });
});

describe('binlog events grouped into transactions', () => {
  it('ends a transaction at its XID, capturing only the included tables, and resumes after it', () => {
    const transactions = new BinlogTransactions(
      { file: 'binlog.000001', pos: 4 },
      tableFilterOf({ 'table.include.list': 'shop.orders' }),
    );
    const events = [
      event('rotate', 0, { binlogName: 'binlog.000002', position: 4 }),
      event('mariadbgtid', 744, { gtid: '0-1-5' }),
      event('tablemap', 800),
      event('writerows', 900, { tableId: 7, rows: [{ id: 1, name: 'tea' }] }),
      event('writerows', 950, { tableId: 8, rows: [{ id: 1 }] }),
      event('updaterows', 1000, {
        tableId: 7,
        rows: [{ before: { id: 1, name: 'tea' }, after: { id: 1, name: Buffer.from('hi') } }],
      }),
      event('deleterows', 1050, { tableId: 7, rows: [{ id: 2, name: null }] }),
    ];
    for (const each of events) expect(transactions.feed(each)).toBeUndefined();
    expect(transactions.feed(event('xid', 1107))).toEqual({
      changes: [
        { db: 'shop', table: 'orders', op: 'c', before: null, after: { id: 1, name: 'tea' } },
        {
          db: 'shop',
          table: 'orders',
          op: 'u',
          before: { id: 1, name: 'tea' },
          after: { id: 1, name: 'aGk=' },
        },
        { db: 'shop', table: 'orders', op: 'd', before: { id: 2, name: null }, after: null },
      ],
      begin: { file: 'binlog.000002', pos: 704 },
      next: { file: 'binlog.000002', pos: 1107 },
      gtid: '0-1-5',
      ts_ms: 1_700_000_000_000,
    });
  });

  it('ends a statement outside a transaction (DDL, a non-transactional COMMIT) with no changes of its own', () => {
    const transactions = new BinlogTransactions({ file: 'binlog.000001', pos: 4 }, tableFilterOf({}));
    expect(transactions.feed(event('mariadbgtid', 400, { gtid: '0-1-1' }))).toBeUndefined();
    expect(transactions.feed(event('query', 520, { query: 'CREATE TABLE t (id int)' }))).toMatchObject({
      changes: [],
      next: { file: 'binlog.000001', pos: 520 },
    });
    expect(transactions.feed(event('query', 600, { query: 'BEGIN' }))).toBeUndefined();
    expect(transactions.feed(event('writerows', 700, { tableId: 7, rows: [{ id: 3 }] }))).toBeUndefined();
    expect(transactions.feed(event('query', 760, { query: 'COMMIT' }))).toEqual({
      changes: [{ db: 'shop', table: 'orders', op: 'c', before: null, after: { id: 3 } }],
      begin: { file: 'binlog.000001', pos: 560 },
      next: { file: 'binlog.000001', pos: 760 },
      gtid: null,
      ts_ms: 1_700_000_000_000,
    });
  });
});

describe('the Connect schema of a MySQL column', () => {
  it.each([
    ['tinyint', 'tinyint(1)', 'int16'],
    ['smallint', 'smallint(5) unsigned', 'int32'],
    ['int', 'int(11)', 'int32'],
    ['int', 'int(10) unsigned', 'int64'],
    ['bigint', 'bigint(20)', 'int64'],
    ['double', 'double', 'float64'],
    ['year', 'year(4)', 'int32'],
    ['decimal', 'decimal(10,2)', 'string'],
    ['datetime', 'datetime', 'string'],
    ['varchar', 'varchar(40)', 'string'],
  ])('%s (%s) is %s', (dataType, columnType, type) => {
    expect(mysqlColumnSchemaOf(dataType, columnType)).toEqual({ type });
  });
});
