/**
 * PostgreSQL's `pgoutput` logical replication messages (protocol version 1), as the publication's
 * changes come out of `pg_logical_slot_peek_binary_changes`: Begin, Relation, Insert, Update,
 * Delete, Truncate and Commit read into the changes the source produces. Values arrive as text and
 * are typed by the column's type OID the way the `test_decoding` reading types them.
 */
import type { ColumnValue, Row } from '../../change-envelope.js';
import type { ConnectSchema } from '../../connect-record.js';

/** A table as a Relation message describes it, before any change to it in a decoding session. */
export interface PgoutputRelation {
  id: number;
  schema: string;
  table: string;
  /** `d` default, `n` nothing, `f` full, `i` index. */
  replicaIdentity: string;
  columns: { name: string; typeOid: number; key: boolean }[];
}

export type PgoutputMessage =
  | { kind: 'begin'; finalLsn: string; ts_ms: number; xid: number }
  | { kind: 'commit'; lsn: string; endLsn: string; ts_ms: number }
  | { kind: 'relation'; relation: PgoutputRelation }
  | { kind: 'insert'; relationId: number; after: TupleValue[] }
  | {
      kind: 'update';
      relationId: number;
      old: { identity: 'K' | 'O'; values: TupleValue[] } | null;
      after: TupleValue[];
    }
  | { kind: 'delete'; relationId: number; old: { identity: 'K' | 'O'; values: TupleValue[] } }
  | { kind: 'truncate'; relationIds: number[] }
  | { kind: 'other'; tag: string };

/** A column of a tuple: null, a TOASTed value left unchanged (not sent), or its text. */
export type TupleValue = { kind: 'null' } | { kind: 'unchanged' } | { kind: 'text'; text: string };

/** Debezium's placeholder for a TOASTed column an update did not change, so not sent. */
export const UNAVAILABLE_VALUE = '__debezium_unavailable_value';

/** Microseconds from the Unix epoch to PostgreSQL's (2000-01-01). */
const POSTGRES_EPOCH_MS = 946_684_800_000;

class Reader {
  private at = 0;
  constructor(private readonly buffer: Buffer) {}

  byte(): string {
    return String.fromCharCode(this.buffer.readUInt8(this.at++));
  }

  int8(): number {
    return this.buffer.readInt8(this.at++);
  }

  int16(): number {
    const value = this.buffer.readInt16BE(this.at);
    this.at += 2;
    return value;
  }

  int32(): number {
    const value = this.buffer.readInt32BE(this.at);
    this.at += 4;
    return value;
  }

  uint32(): number {
    const value = this.buffer.readUInt32BE(this.at);
    this.at += 4;
    return value;
  }

  /** An LSN as PostgreSQL prints one: `16/B374D848`. */
  lsn(): string {
    const high = this.uint32();
    const low = this.uint32();
    return `${high.toString(16).toUpperCase()}/${low.toString(16).toUpperCase()}`;
  }

  /** A timestamp in microseconds since 2000-01-01, as milliseconds since the Unix epoch. */
  timestamp(): number {
    const micros = this.buffer.readBigInt64BE(this.at);
    this.at += 8;
    return POSTGRES_EPOCH_MS + Number(micros / 1000n);
  }

  string(): string {
    const end = this.buffer.indexOf(0, this.at);
    const value = this.buffer.toString('utf8', this.at, end);
    this.at = end + 1;
    return value;
  }

  bytes(length: number): Buffer {
    const value = this.buffer.subarray(this.at, this.at + length);
    this.at += length;
    return value;
  }

  tuple(): TupleValue[] {
    const count = this.int16();
    const values: TupleValue[] = [];
    for (let index = 0; index < count; index += 1) {
      const kind = this.byte();
      if (kind === 'n') values.push({ kind: 'null' });
      else if (kind === 'u') values.push({ kind: 'unchanged' });
      else if (kind === 't') values.push({ kind: 'text', text: this.bytes(this.int32()).toString('utf8') });
      else throw new Error(`pgoutput: unknown tuple column kind ${kind}`);
    }
    return values;
  }
}

/** One pgoutput message, read. */
export function decodePgoutput(data: Buffer): PgoutputMessage {
  const reader = new Reader(data);
  const tag = reader.byte();
  switch (tag) {
    case 'B': {
      const finalLsn = reader.lsn();
      const ts_ms = reader.timestamp();
      return { kind: 'begin', finalLsn, ts_ms, xid: reader.uint32() };
    }
    case 'C': {
      reader.int8();
      const lsn = reader.lsn();
      const endLsn = reader.lsn();
      return { kind: 'commit', lsn, endLsn, ts_ms: reader.timestamp() };
    }
    case 'R': {
      const id = reader.uint32();
      const schema = reader.string() || 'pg_catalog';
      const table = reader.string();
      const replicaIdentity = reader.byte();
      const count = reader.int16();
      const columns = [];
      for (let index = 0; index < count; index += 1) {
        const flags = reader.int8();
        const name = reader.string();
        const typeOid = reader.uint32();
        reader.int32();
        columns.push({ name, typeOid, key: (flags & 1) === 1 });
      }
      return { kind: 'relation', relation: { id, schema, table, replicaIdentity, columns } };
    }
    case 'I': {
      const relationId = reader.uint32();
      reader.byte();
      return { kind: 'insert', relationId, after: reader.tuple() };
    }
    case 'U': {
      const relationId = reader.uint32();
      let marker = reader.byte();
      let old: { identity: 'K' | 'O'; values: TupleValue[] } | null = null;
      if (marker === 'K' || marker === 'O') {
        old = { identity: marker, values: reader.tuple() };
        marker = reader.byte();
      }
      return { kind: 'update', relationId, old, after: reader.tuple() };
    }
    case 'D': {
      const relationId = reader.uint32();
      const identity = reader.byte() as 'K' | 'O';
      return { kind: 'delete', relationId, old: { identity, values: reader.tuple() } };
    }
    case 'T': {
      const count = reader.int32();
      reader.int8();
      const relationIds = [];
      for (let index = 0; index < count; index += 1) relationIds.push(reader.uint32());
      return { kind: 'truncate', relationIds };
    }
    default:
      return { kind: 'other', tag };
  }
}

const BOOL = 16;
const INTEGER_OIDS = new Set([20, 21, 23, 26]);
const FLOAT_OIDS = new Set([700, 701]);

/** The Connect schema of a column's values as `columnValueOf` types them. */
export function columnSchemaOf(typeOid: number): ConnectSchema {
  if (typeOid === BOOL) return { type: 'boolean' };
  if (typeOid === 700) return { type: 'float32' };
  if (typeOid === 701) return { type: 'float64' };
  if (typeOid === 21) return { type: 'int16' };
  if (typeOid === 23) return { type: 'int32' };
  if (INTEGER_OIDS.has(typeOid)) return { type: 'int64' };
  return { type: 'string' };
}

/** A column's text typed as the `test_decoding` reading types it: booleans, integers that fit, floats; text otherwise. */
export function columnValueOf(typeOid: number, text: string): ColumnValue {
  if (typeOid === BOOL) return text === 't';
  if (FLOAT_OIDS.has(typeOid)) return Number(text);
  if (INTEGER_OIDS.has(typeOid)) {
    const number = Number(text);
    return Number.isSafeInteger(number) ? number : text;
  }
  return text;
}

/**
 * A tuple as a row of the relation's columns. `keyOnly` keeps only the replica identity's columns
 * (an old key, `K`), as a delete under the default identity describes the row it removed.
 */
export function rowOf(relation: PgoutputRelation, values: readonly TupleValue[], keyOnly = false): Row {
  const row: Row = {};
  relation.columns.forEach((column, index) => {
    if (keyOnly && !column.key) return;
    const value = values[index];
    if (!value || value.kind === 'null') row[column.name] = null;
    else if (value.kind === 'unchanged') row[column.name] = UNAVAILABLE_VALUE;
    else row[column.name] = columnValueOf(column.typeOid, value.text);
  });
  return row;
}
