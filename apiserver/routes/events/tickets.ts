/**
 * `POST /v1/events/tickets`: a one-use ticket that opens `GET /v1/events/stream?ticket=` for a
 * minute, for browsers, whose WebSocket API cannot send an Authorization header.
 */
import { issueTicket, TICKET_LIFETIME_MS } from '../../event-stream/tickets.js';
import { forbidden } from '../../errors.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { defineRoute, type RouteModule, type AuthenticatedContext, type Empty } from '../../routing/route.js';

const TICKET_BODY = {
  type: 'object',
  required: ['ticket', 'expires_at'],
  properties: {
    ticket: { type: 'string', description: 'Pass as `?ticket=` to GET /v1/events/stream; works once' },
    expires_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

async function createEventTicket({ principal, database, now }: AuthenticatedContext) {
  const { organizationId } = principal;
  if (!organizationId) {
    throw forbidden('this operation needs a current organization; choose one with PATCH /v1/auth/me');
  }
  const issued = await issueTicket(database, { ...principal, organizationId }, now());
  return {
    status: 201,
    data: { ticket: issued.ticket, expires_at: issued.expiresAt.toISOString() },
  };
}

export const eventTicketRoutes: RouteModule = {
  area: 'resources',
  routes: [
    defineRoute<Empty>({
      method: 'post',
      path: '/v1/events/tickets',
      area: 'resources',
      auth: 'authenticated',
      tags: ['events'],
      summary: 'A one-use ticket for the event stream',
      description: `The ticket opens one stream of the caller's organization within ${TICKET_LIFETIME_MS / 1000} s.`,
      responses: { 201: { description: 'The ticket', schema: TICKET_BODY } },
      handler: createEventTicket,
    }),
  ],
};
