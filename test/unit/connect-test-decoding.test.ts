import { describe, expect, it } from 'vitest';
import { parseTestDecodingLine } from '../../connect/connectors/postgres-source/task.js';

describe('reading test_decoding output', () => {
  it.each([
    ['BEGIN 742', { kind: 'begin', xid: 742 }],
    ['COMMIT 742', { kind: 'commit', xid: 742, ts_ms: null }],
    [
      'COMMIT 742 (at 2026-11-26 15:40:01.5+00)',
      { kind: 'commit', xid: 742, ts_ms: Date.parse('2026-11-26T15:40:01.5+00:00') },
    ],
    [
      "table public.orders: INSERT: id[integer]:1 name[text]:'x' total[numeric]:12.50 paid[boolean]:true",
      {
        kind: 'insert',
        schema: 'public',
        table: 'orders',
        after: { id: 1, name: 'x', total: '12.50', paid: true },
      },
    ],
    [
      "table public.orders: INSERT: id[bigint]:9007199254740993 note[character varying]:'it''s a b c' ratio[double precision]:0.25 gone[text]:null",
      {
        kind: 'insert',
        schema: 'public',
        table: 'orders',
        after: { id: '9007199254740993', note: "it's a b c", ratio: 0.25, gone: null },
      },
    ],
    [
      `table "Sales"."Big Orders": INSERT: "Order Id"[integer]:3 tags[text[]]:'{a,b}'`,
      { kind: 'insert', schema: 'Sales', table: 'Big Orders', after: { 'Order Id': 3, tags: '{a,b}' } },
    ],
    [
      "table public.orders: UPDATE: id[integer]:1 name[text]:'y'",
      { kind: 'update', schema: 'public', table: 'orders', oldKey: null, after: { id: 1, name: 'y' } },
    ],
    [
      "table public.orders: UPDATE: old-key: id[integer]:1 new-tuple: id[integer]:2 name[text]:'y'",
      {
        kind: 'update',
        schema: 'public',
        table: 'orders',
        oldKey: { id: 1 },
        after: { id: 2, name: 'y' },
      },
    ],
    [
      'table public.orders: DELETE: id[integer]:2',
      { kind: 'delete', schema: 'public', table: 'orders', oldKey: { id: 2 } },
    ],
    [
      'table public.log: DELETE: (no-tuple-data)',
      { kind: 'delete', schema: 'public', table: 'log', oldKey: null },
    ],
    ['table public.orders: TRUNCATE: (no-flags)', undefined],
  ])('reads %s', (line, decoded) => {
    expect(parseTestDecodingLine(line)).toEqual(decoded);
  });
});
