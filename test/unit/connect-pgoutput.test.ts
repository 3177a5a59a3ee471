import { describe, expect, it } from 'vitest';
import {
  columnValueOf,
  decodePgoutput,
  UNAVAILABLE_VALUE,
} from '../../connect/connectors/postgres-source/pgoutput.js';
import { pgoutputLinesOf } from '../../connect/connectors/postgres-source/task.js';

/** Builders of pgoutput messages, byte for byte as PostgreSQL's protocol documents them. */
const int8 = (value: number) => Buffer.from([value & 0xff]);
const int16 = (value: number) => {
  const buffer = Buffer.alloc(2);
  buffer.writeInt16BE(value);
  return buffer;
};
const int32 = (value: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
};
const int64 = (value: bigint) => {
  const buffer = Buffer.alloc(8);
  buffer.writeBigInt64BE(value);
  return buffer;
};
const text = (value: string) => Buffer.concat([Buffer.from(value, 'utf8'), Buffer.from([0])]);
const tag = (letter: string) => Buffer.from(letter, 'ascii');
/** 2024-01-31T00:00:00Z in microseconds since 2000-01-01. */
const COMMIT_MICROS = BigInt(Date.UTC(2024, 0, 31) - Date.UTC(2000, 0, 1)) * 1000n;

type Column = ['n'] | ['u'] | ['t', string];
const tuple = (...columns: Column[]) =>
  Buffer.concat([
    int16(columns.length),
    ...columns.map((column) =>
      column[0] === 't'
        ? Buffer.concat([tag('t'), int32(Buffer.byteLength(column[1])), Buffer.from(column[1])])
        : tag(column[0]),
    ),
  ]);

const relation = Buffer.concat([
  tag('R'),
  int32(16384),
  text('public'),
  text('orders'),
  tag('d'),
  int16(3),
  ...[
    [1, 'id', 23],
    [0, 'note', 25],
    [0, 'paid', 16],
  ].flatMap(([flags, name, oid]) => [
    int8(flags as number),
    text(name as string),
    int32(oid as number),
    int32(-1 >>> 0),
  ]),
]);
const begin = Buffer.concat([tag('B'), int32(0x16), int32(0xb374d848), int64(COMMIT_MICROS), int32(771)]);
const commit = Buffer.concat([
  tag('C'),
  int8(0),
  int32(0x16),
  int32(0xb374d848),
  int32(0x16),
  int32(0xb374d900),
  int64(COMMIT_MICROS),
]);
const insert = Buffer.concat([
  tag('I'),
  int32(16384),
  tag('N'),
  tuple(['t', '7'], ['t', "it's"], ['t', 't']),
]);
const update = Buffer.concat([
  tag('U'),
  int32(16384),
  tag('K'),
  tuple(['t', '7'], ['n'], ['n']),
  tag('N'),
  tuple(['t', '8'], ['u'], ['t', 'f']),
]);
const remove = Buffer.concat([tag('D'), int32(16384), tag('K'), tuple(['t', '8'], ['n'], ['n'])]);
const truncate = Buffer.concat([tag('T'), int32(1), int8(0), int32(16384)]);

describe('pgoutput messages', () => {
  it('reads Begin and Commit with their LSNs, transaction and time', () => {
    expect(decodePgoutput(begin)).toEqual({
      kind: 'begin',
      finalLsn: '16/B374D848',
      ts_ms: Date.UTC(2024, 0, 31),
      xid: 771,
    });
    expect(decodePgoutput(commit)).toEqual({
      kind: 'commit',
      lsn: '16/B374D848',
      endLsn: '16/B374D900',
      ts_ms: Date.UTC(2024, 0, 31),
    });
  });

  it('reads a Relation with its key columns', () => {
    expect(decodePgoutput(relation)).toEqual({
      kind: 'relation',
      relation: {
        id: 16384,
        schema: 'public',
        table: 'orders',
        replicaIdentity: 'd',
        columns: [
          { name: 'id', typeOid: 23, key: true },
          { name: 'note', typeOid: 25, key: false },
          { name: 'paid', typeOid: 16, key: false },
        ],
      },
    });
  });

  it('reads a Truncate and leaves what it does not know as other', () => {
    expect(decodePgoutput(truncate)).toEqual({ kind: 'truncate', relationIds: [16384] });
    expect(decodePgoutput(Buffer.concat([tag('O'), int64(1n), text('origin')]))).toEqual({
      kind: 'other',
      tag: 'O',
    });
  });

  it.each<[number, string, unknown]>([
    [16, 't', true],
    [16, 'f', false],
    [23, '42', 42],
    [20, '9007199254740993', '9007199254740993'],
    [701, '1.5', 1.5],
    [1700, '3.50', '3.50'],
    [25, 'text', 'text'],
  ])('types a column of OID %i from %j', (oid, value, expected) => {
    expect(columnValueOf(oid, value)).toEqual(expected);
  });
});

describe('a peek at a pgoutput slot as change lines', () => {
  it('reads a transaction\u2019s changes with their tables, an old key holding only the key columns', () => {
    const lines = pgoutputLinesOf([begin, relation, insert, update, remove, truncate, commit]);
    expect(lines).toEqual([
      { kind: 'begin', xid: 771 },
      undefined,
      { kind: 'insert', schema: 'public', table: 'orders', after: { id: 7, note: "it's", paid: true } },
      {
        kind: 'update',
        schema: 'public',
        table: 'orders',
        oldKey: { id: 7 },
        after: { id: 8, note: UNAVAILABLE_VALUE, paid: false },
      },
      { kind: 'delete', schema: 'public', table: 'orders', oldKey: { id: 8 } },
      undefined,
      { kind: 'commit', xid: 771, ts_ms: Date.UTC(2024, 0, 31) },
    ]);
  });

  it('refuses a change to a table no Relation described', () => {
    expect(() => pgoutputLinesOf([begin, insert])).toThrow('came before its description');
  });
});
