import { createHmac, randomUUID } from 'node:crypto';
import { setImmediate } from 'node:timers';
import type { Kysely } from 'kysely';
import { preparedQuery } from '../data-plane/prepared-query.js';
import type { DataPlaneSchema, VaultAuditEntriesTable } from '../data-plane/schema.js';

/** One audited request, as `GET /vault/:id/audit` answers it. */
export interface AuditEntry {
  timestamp: string;
  request: {
    operation: string;
    path: string;
    client_token: string;
    client_address: string;
    user_agent: string;
  };
  response: { status: number; duration_ms: number };
  auth: { client_token: string; accessor: string; policies: string[] };
  error: string | null;
}

export interface AuditQuery {
  limit: number;
  offset: number;
  /** ISO timestamps, inclusive. */
  from?: string;
  to?: string;
}

/** Vault's audit-device form of a sensitive value: an HMAC under the cluster's salt; empty stays empty. */
export function hmacField(salt: Buffer, value: string): string {
  return value === '' ? '' : `hmac-sha256:${createHmac('sha256', salt).update(value, 'utf8').digest('hex')}`;
}

/**
 * Ids sort in recording order: the timestamp, then this process's monotonic clock (entries of the
 * same millisecond), then randomness so replicas never collide.
 */
function entryId(timestamp: string): string {
  // A uuid's first eight hex digits are random, and node draws uuids from a pool it fills in
  // batches; randomBytes(4) costs a call into OpenSSL and a buffer on every request.
  return `${timestamp}-${process.hrtime.bigint().toString().padStart(20, '0')}-${randomUUID().slice(0, 8)}`;
}

// Every vault request writes one: compiled once rather than built per call.
const insertEntry = preparedQuery((db, id: string, clusterId: string, timestamp: string, entry: string) =>
  db.insertInto('vault_audit_entries').values({ id, cluster_id: clusterId, timestamp, entry }),
);

type AuditRow = VaultAuditEntriesTable;

interface PendingRow {
  row: AuditRow;
  settle: (error?: unknown) => void;
}

/**
 * Rows per insert: four parameters each, well under every data plane's limit on a statement's
 * parameters (SQLite's 32,766, PostgreSQL's 65,535).
 */
const ROWS_PER_INSERT = 500;

/**
 * Group commit of the audit entries of requests that change nothing (reads, encryption): the
 * entries that arrive in one turn of the event loop are written by one insert, and each request
 * is answered once that insert is durable (the data plane answers a write only after its commit
 * is flushed), or fails with it. One statement per group rather than a transaction and a
 * statement per request, which cost a read more than the read itself.
 */
export class AuditWriter {
  private pending: PendingRow[] = [];

  constructor(private readonly db: Kysely<DataPlaneSchema>) {}

  /** Resolves once the row is durable; rejects when it could not be written. */
  write(row: AuditRow): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ row, settle: (error) => (error === undefined ? resolve() : reject(error)) });
    });
  }

  private async flush(): Promise<void> {
    const group = this.pending;
    this.pending = [];
    for (let start = 0; start < group.length; start += ROWS_PER_INSERT) {
      const members = group.slice(start, start + ROWS_PER_INSERT);
      let failure: unknown;
      try {
        await this.db
          .insertInto('vault_audit_entries')
          .values(members.map((member) => member.row))
          .execute();
      } catch (error) {
        failure = error ?? new Error('the audit insert failed');
      }
      for (const member of members) member.settle(failure);
    }
  }
}

/** The cluster's audit log. Entries are written with their token fields already HMAC'd. */
export class AuditLog {
  constructor(
    private readonly db: Kysely<DataPlaneSchema>,
    private readonly clusterId: string,
    private readonly salt: Buffer,
  ) {}

  /** `entry` carries raw token values; they are HMAC'd before anything is written. */
  async record(entry: AuditEntry): Promise<void> {
    const row = this.row(entry);
    await insertEntry(this.db, row.id, row.cluster_id, row.timestamp, row.entry);
  }

  /** The stored row of `entry`, its token fields HMAC'd. */
  row(entry: AuditEntry): AuditRow {
    const requestToken = hmacField(this.salt, entry.request.client_token);
    const stored: AuditEntry = {
      ...entry,
      request: { ...entry.request, client_token: requestToken },
      auth: {
        ...entry.auth,
        // The same token both places, as a rule: its HMAC once.
        client_token:
          entry.auth.client_token === entry.request.client_token
            ? requestToken
            : hmacField(this.salt, entry.auth.client_token),
        accessor: hmacField(this.salt, entry.auth.accessor),
      },
    };
    return {
      id: entryId(entry.timestamp),
      cluster_id: this.clusterId,
      timestamp: entry.timestamp,
      entry: JSON.stringify(stored),
    };
  }

  /** Entries in the order they were recorded. */
  async query(query: AuditQuery): Promise<AuditEntry[]> {
    let select = this.db
      .selectFrom('vault_audit_entries')
      .select('entry')
      .where('cluster_id', '=', this.clusterId);
    if (query.from !== undefined) select = select.where('timestamp', '>=', query.from);
    if (query.to !== undefined) select = select.where('timestamp', '<=', query.to);
    const rows = await select.orderBy('id').limit(query.limit).offset(query.offset).execute();
    return rows.map((row) => JSON.parse(row.entry) as AuditEntry);
  }

  /** HMACs a value the way stored entries carry it, so a known token can be found in the log. */
  hash(value: string): string {
    return hmacField(this.salt, value);
  }
}
