/**
 * One-use tickets that open the event stream without a credential header, for browsers, whose
 * WebSocket API cannot send one. Kept in the data plane, so a ticket issued by one replica opens
 * a stream on any other; only its hash is stored, and using it deletes it in the same statement,
 * so two upgrades racing with one ticket cannot both win.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Principal } from '../../accounts/principal.js';
import type { DataPlane } from '../../data-plane/data-plane.js';

export const TICKET_LIFETIME_MS = 60_000;

const TICKET_PREFIX = 'evt_tkt_';

export interface IssuedTicket {
  ticket: string;
  expiresAt: Date;
}

/** Who a ticket was issued to: the stream serves their organization. */
export interface TicketHolder {
  organizationId: string;
  principalKind: string;
  principalId: string;
  scopes: readonly string[];
}

function hashOf(ticket: string): string {
  return createHash('sha256').update(ticket).digest('hex');
}

/** Issues a ticket for the caller's organization, and forgets the tickets that have expired. */
export async function issueTicket(
  database: DataPlane,
  principal: Principal & { organizationId: string },
  now: Date,
): Promise<IssuedTicket> {
  const ticket = `${TICKET_PREFIX}${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(now.getTime() + TICKET_LIFETIME_MS);
  await database.kysely
    .deleteFrom('event_stream_tickets')
    .where('expires_at', '<=', now.toISOString())
    .execute();
  await database.kysely
    .insertInto('event_stream_tickets')
    .values({
      ticket_hash: hashOf(ticket),
      organization_id: principal.organizationId,
      principal_kind: principal.kind,
      principal_id: principal.id,
      scopes: JSON.stringify(principal.scopes),
      created_at: now.toISOString(),
      expires_at: expiresAt.toISOString(),
    })
    .execute();
  return { ticket, expiresAt };
}

/** The holder of a live ticket, which is used up by this call; `undefined` for any other. */
export async function redeemTicket(
  database: DataPlane,
  ticket: string,
  now: Date,
): Promise<TicketHolder | undefined> {
  const row = await database.kysely
    .deleteFrom('event_stream_tickets')
    .where('ticket_hash', '=', hashOf(ticket))
    .returning(['organization_id', 'principal_kind', 'principal_id', 'scopes', 'expires_at'])
    .executeTakeFirst();
  if (!row || row.expires_at <= now.toISOString()) return undefined;
  return {
    organizationId: row.organization_id,
    principalKind: row.principal_kind,
    principalId: row.principal_id,
    scopes: JSON.parse(row.scopes) as string[],
  };
}
