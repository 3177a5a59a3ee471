/**
 * Who opens a stream: the caller of a credential header (bearer token or API key), or the holder
 * of a one-use ticket. Refusals are `ApiError`s, written as HTTP answers before any upgrade.
 */
import type { IncomingMessage } from 'node:http';
import type { Authenticator } from '../../accounts/principal.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import { forbidden, unauthorized } from '../errors.js';
import { redeemTicket } from './tickets.js';

export interface StreamCaller {
  organizationId: string;
  principalKind: string;
  principalId: string;
  /** The stream shows only the events these scopes read. */
  scopes: readonly string[];
}

export interface UpgradeAuthDependencies {
  authenticator: Authenticator;
  database: DataPlane;
  now: () => Date;
}

function carriesCredentialHeader(request: IncomingMessage): boolean {
  return request.headers.authorization !== undefined || request.headers['x-api-key'] !== undefined;
}

export async function authenticateUpgrade(
  request: IncomingMessage,
  url: URL,
  deps: UpgradeAuthDependencies,
): Promise<StreamCaller> {
  const ticket = url.searchParams.get('ticket');
  if (ticket !== null && carriesCredentialHeader(request)) {
    throw unauthorized('send one credential: either a credential header or a ticket', {
      code: 'invalid_token',
    });
  }
  if (ticket !== null) {
    const holder = await redeemTicket(deps.database, ticket, deps.now());
    if (!holder) {
      throw unauthorized(
        'the ticket is unknown, expired or already used; ask POST /v1/events/tickets for another',
        {
          code: 'invalid_token',
        },
      );
    }
    return holder;
  }
  const principal = await deps.authenticator({ headers: request.headers });
  if (!principal) {
    throw unauthorized('send Authorization or a ticket from POST /v1/events/tickets as ?ticket=');
  }
  if (!principal.organizationId) {
    throw forbidden('this operation needs a current organization; choose one with PATCH /v1/auth/me');
  }
  return {
    organizationId: principal.organizationId,
    principalKind: principal.kind,
    principalId: principal.id,
    scopes: principal.scopes,
  };
}
