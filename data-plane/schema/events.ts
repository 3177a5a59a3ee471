/** The platform's event log, streamed to WebSocket clients (migration 0014_platform_events). */
export interface PlatformEventsTables {
  platform_events: PlatformEventsTable;
  event_stream_tickets: EventStreamTicketsTable;
}

/** One catalogue event as the event bridge published it. */
export interface PlatformEventsTable {
  /** Grows by one per event in commit order; a stream's event id and `since` are this number. */
  sequence: number;
  organization_id: string;
  /** A catalogue type, `<family>.<verb>`. */
  type: string;
  /** The id of the resource the event is about. */
  subject: string;
  time: string;
  /** The event's payload, JSON. */
  data: string;
}

/** A one-use ticket to open the event stream without a credential header (browsers). */
export interface EventStreamTicketsTable {
  /** SHA-256 of the ticket, hex: the ticket itself is never stored. */
  ticket_hash: string;
  organization_id: string;
  principal_kind: string;
  principal_id: string;
  /** JSON array of the holder's scopes. */
  scopes: string;
  created_at: string;
  expires_at: string;
}
