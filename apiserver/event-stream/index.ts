export {
  attachEventStream,
  DEFAULT_EVENT_STREAM_OPTIONS,
  EVENT_STREAM_PATH,
  type EventStream,
  type EventStreamDependencies,
  type EventStreamOptions,
} from './event-stream.js';
export { issueTicket, redeemTicket, TICKET_LIFETIME_MS, type IssuedTicket } from './tickets.js';
export type { CloudEvent } from './cloud-event.js';
