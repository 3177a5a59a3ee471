import { createHmac, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { preparedQuery } from '../data-plane/prepared-query.js';
import type { DataPlaneSchema } from '../data-plane/schema.js';

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

/** The cluster's audit log. Entries are written with their token fields already HMAC'd. */
export class AuditLog {
  constructor(
    private readonly db: Kysely<DataPlaneSchema>,
    private readonly clusterId: string,
    private readonly salt: Buffer,
  ) {}

  /** `entry` carries raw token values; they are HMAC'd before anything is written. */
  async record(entry: AuditEntry): Promise<void> {
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
    await insertEntry(
      this.db,
      entryId(entry.timestamp),
      this.clusterId,
      entry.timestamp,
      JSON.stringify(stored),
    );
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
