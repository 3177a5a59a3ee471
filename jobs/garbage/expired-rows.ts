/**
 * One-use and short-lived credentials past their expiry: they can no longer be used, so they go
 * without waiting for the retention period. Refresh tokens go before the sessions they belong to.
 */
import type { RecordCollector } from './types.js';

type ExpiringTable =
  | 'refresh_tokens'
  | 'sessions'
  | 'email_tokens'
  | 'two_factor_challenges'
  | 'oauth_login_states'
  | 'event_stream_tickets';

function expiredRows(table: ExpiringTable, reason: string): RecordCollector {
  return {
    shape: 'records',
    name: table,
    reason,
    minimumAgeDays: () => 0,
    async count({ database, now }) {
      const row = await database.kysely
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .where('expires_at', '<', now.toISOString())
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },
    async purge({ database, now }) {
      const result = await database.kysely
        .deleteFrom(table)
        .where('expires_at', '<', now.toISOString())
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

/** In the order they are deleted: a session's refresh tokens before the session. */
export const EXPIRED_CREDENTIALS: readonly RecordCollector[] = [
  expiredRows('refresh_tokens', 'refresh token expired'),
  expiredRows('sessions', 'session expired'),
  expiredRows('email_tokens', 'e-mail link expired'),
  expiredRows('two_factor_challenges', 'two-factor challenge expired'),
  expiredRows('oauth_login_states', 'OAuth login state expired'),
];

export const EXPIRED_EVENT_STREAM_TICKETS: RecordCollector = expiredRows(
  'event_stream_tickets',
  'event stream ticket expired',
);
