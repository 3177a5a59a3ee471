import type { PlatformEventsTable } from '../../data-plane/schema.js';

/** What a stream client receives per event: CloudEvents 1.0 attributes in JSON. */
export interface CloudEvent {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  time: string;
  subject: string;
  data: unknown;
}

export function toCloudEvent(row: PlatformEventsTable): CloudEvent {
  return {
    specversion: '1.0',
    id: String(row.sequence),
    source: `/v1/organizations/${row.organization_id}`,
    type: row.type,
    time: row.time,
    subject: row.subject,
    data: JSON.parse(row.data) as unknown,
  };
}
