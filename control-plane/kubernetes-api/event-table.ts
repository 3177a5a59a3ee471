import type { CoreEvent, EventsV1Event } from '../event-objects.js';
import type { KubeObject } from '../types.js';
import { objectAge } from './object-age.js';
import type { ServedResource } from './served-resources.js';

/**
 * The columns `kubectl get events` prints, computed as a kube-apiserver's event printer computes
 * them: Last Seen with the repeat count (`5s (x12 over 3m)`), the object as `kind/name`.
 */

export interface ComputedColumn {
  name: string;
  type: string;
  description: string;
  priority: number;
  cell(object: KubeObject, now: Date): unknown;
}

/** The fields the printer reads, from either version of an Event. */
interface EventFields {
  type?: string;
  reason?: string;
  message?: string;
  object: { kind?: string; name?: string; fieldPath?: string };
  source?: string;
  firstSeen?: string;
  lastSeen?: string;
  count: number;
  series: boolean;
}

function fieldsOf(object: KubeObject): EventFields {
  if (object.apiVersion === 'events.k8s.io/v1') {
    const event = object as unknown as EventsV1Event;
    return {
      type: event.type,
      reason: event.reason,
      message: event.note,
      object: event.regarding ?? {},
      source: event.reportingController ?? event.deprecatedSource?.component,
      firstSeen: event.deprecatedFirstTimestamp ?? event.eventTime,
      lastSeen: event.series?.lastObservedTime ?? event.deprecatedLastTimestamp ?? event.eventTime,
      count: event.series?.count ?? event.deprecatedCount ?? 1,
      series: event.series !== undefined,
    };
  }
  const event = object as unknown as CoreEvent;
  return {
    type: event.type,
    reason: event.reason,
    message: event.message,
    object: event.involvedObject ?? {},
    source: event.source?.component ?? event.reportingComponent,
    firstSeen: event.firstTimestamp ?? event.eventTime,
    lastSeen: event.series?.lastObservedTime ?? event.lastTimestamp ?? event.eventTime,
    count: event.series?.count ?? event.count ?? 1,
    series: event.series !== undefined,
  };
}

function lastSeen(object: KubeObject, now: Date): string {
  const event = fieldsOf(object);
  const first = objectAge(event.firstSeen ?? object.metadata.creationTimestamp, now);
  const last = objectAge(event.lastSeen ?? event.firstSeen ?? object.metadata.creationTimestamp, now);
  if (event.series || event.count > 1) return `${last} (x${event.count} over ${first})`;
  return last;
}

function column(
  name: string,
  description: string,
  cell: (object: KubeObject, now: Date) => unknown,
  priority = 0,
): ComputedColumn {
  return { name, type: 'string', description, priority, cell };
}

const EVENT_COLUMNS: readonly ComputedColumn[] = [
  column('Last Seen', 'When the event last occurred, and how often', lastSeen),
  column('Type', 'Normal or Warning', (object) => fieldsOf(object).type ?? ''),
  column('Reason', 'Why the event was recorded, in CamelCase', (object) => fieldsOf(object).reason ?? ''),
  column('Object', 'The object the event is about', (object) => {
    const { kind, name } = fieldsOf(object).object;
    return `${(kind ?? '').toLowerCase()}/${name ?? ''}`;
  }),
  column('Subobject', 'The part of the object', (object) => fieldsOf(object).object.fieldPath ?? '', 1),
  column('Source', 'The component that recorded it', (object) => fieldsOf(object).source ?? '', 1),
  column('Message', 'What happened, for a person', (object) => fieldsOf(object).message ?? ''),
  column(
    'First Seen',
    'When the event first occurred',
    (object, now) => objectAge(fieldsOf(object).firstSeen ?? object.metadata.creationTimestamp, now),
    1,
  ),
  column('Count', 'How often it occurred', (object) => fieldsOf(object).count, 1),
  column('Name', 'The event’s name', (object) => object.metadata.name, 1),
];

/** The computed columns of `resource` when it is an Event (of either version), otherwise undefined. */
export function computedColumnsOf(resource: ServedResource): readonly ComputedColumn[] | undefined {
  const { descriptor } = resource;
  const isEvent =
    descriptor.kind === 'Event' && (descriptor.group === '' || descriptor.group === 'events.k8s.io');
  return isEvent ? EVENT_COLUMNS : undefined;
}
