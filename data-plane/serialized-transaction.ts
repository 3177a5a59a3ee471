import { sql, type Transaction } from 'kysely';
import type { DataPlane } from './data-plane.js';
import type { DataPlaneSchema } from './schema.js';

/**
 * The classes of serialised decisions, in one place so two never share a number (they would
 * wait on each other for nothing).
 */
export const LOCK_CLASSES = {
  cidrClaims: 0x0c1d,
  membership: 0x0c1e,
  invitations: 0x0c1f,
  quotaClaims: 0x0c20,
  eventLog: 0x0c2e,
  schemaRegistry: 0x0c5c,
} as const;

/** A lock of a class of decisions (VPC claims, membership changes) for one key (an organization). */
export interface SerializationLock {
  /** Distinguishes the classes of decisions, so different classes never wait on each other. */
  lockClass: number;
  key: string;
}

/**
 * Runs `work` in a transaction no other transaction holding the same lock overlaps: what it read
 * still holds when it writes, so racing requests cannot both pass a check (a limit, "at least one
 * owner"). On SQLite every transaction begins immediate and takes the single write lock up front;
 * on PostgreSQL a transaction-scoped advisory lock on (class, key) does, so keys never wait on
 * each other.
 */
export async function serializedTransaction<T>(
  database: DataPlane,
  lock: SerializationLock,
  work: (trx: Transaction<DataPlaneSchema>) => Promise<T>,
): Promise<T> {
  return database.kysely.transaction().execute(async (trx) => {
    if (database.dialect === 'postgres') {
      await sql`select pg_advisory_xact_lock(${lock.lockClass}, hashtext(${lock.key}))`.execute(trx);
    }
    return work(trx);
  });
}
