/** Meter events sent to the payment provider. */
export interface BillingTables {
  meter_events: MeterEventsTable;
}

/**
 * One meter event of one organization's meter for one UTC day. The first event of a day carries
 * its total (revision 0); usage that arrives after it was sent goes out as a further event carrying
 * the difference (revision 1, 2, …), so the provider's sum is the day's total.
 */
export interface MeterEventsTable {
  /** `<organization>/<meter>/<day>`, with `-r<revision>` from revision 1: the provider dedups on it. */
  identifier: string;
  /** The organization id (`org_…`), sent as the provider's customer id. */
  organization: string;
  meter: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  /** What this event adds to the day, in whole units of the meter. */
  value: number;
  revision: number;
  /** When the provider (or the outbox) took it; null while it waits to be sent or resent. */
  sent_at: string | null;
}
