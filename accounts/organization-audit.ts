import type { Kysely } from 'kysely';
import type { DataPlaneSchema } from '../data-plane/schema.js';
import { randomBase32 } from './ids.js';

let sequence = 0;

/**
 * `aud_`, the time and a per-process sequence in base 36, then randomness: ids sort in the order
 * the entries were written, even several within one millisecond.
 */
function newAuditId(now: Date): string {
  sequence = (sequence + 1) % 36 ** 6;
  const time = now.getTime().toString(36).padStart(10, '0');
  return `aud_${time}${sequence.toString(36).padStart(6, '0')}${randomBase32(8)}`;
}

/** What happened to an organization's membership; owners read it at `/v1/organizations/:id/audit`. */
export type AuditAction =
  | 'member_added'
  | 'member_removed'
  | 'role_changed'
  | 'invitation_sent'
  | 'invitation_revoked'
  | 'deletion_requested';

export interface AuditEntry {
  id: string;
  actor_id: string;
  action: AuditAction;
  subject: string;
  details: Record<string, unknown>;
  created_at: string;
}

/** Records an entry; run it in the transaction of the change it describes, so neither exists alone. */
export async function recordAudit(
  db: Kysely<DataPlaneSchema>,
  entry: { organizationId: string; actorId: string; action: AuditAction; subject: string; details?: object },
  now: Date,
): Promise<void> {
  await db
    .insertInto('organization_audit')
    .values({
      id: newAuditId(now),
      organization_id: entry.organizationId,
      actor_id: entry.actorId,
      action: entry.action,
      subject: entry.subject,
      details: JSON.stringify(entry.details ?? {}),
      created_at: now.toISOString(),
    })
    .execute();
}

/** The organization's entries, newest first. */
export async function listAudit(
  db: Kysely<DataPlaneSchema>,
  organizationId: string,
  window: { limit: number; offset: number },
): Promise<{ entries: AuditEntry[]; total: number }> {
  const rows = await db
    .selectFrom('organization_audit')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('id', 'desc')
    .limit(window.limit)
    .offset(window.offset)
    .execute();
  const { count } = await db
    .selectFrom('organization_audit')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return {
    total: Number(count),
    entries: rows.map((row) => ({
      id: row.id,
      actor_id: row.actor_id,
      action: row.action as AuditAction,
      subject: row.subject,
      details: JSON.parse(row.details) as Record<string, unknown>,
      created_at: row.created_at,
    })),
  };
}
