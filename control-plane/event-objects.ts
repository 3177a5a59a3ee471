import type { KubeObject, ObjectMeta } from './types.js';

/**
 * Events as Kubernetes has them: the core `v1` Event controllers record through client-go's
 * recorder and `kubectl describe` and `kubectl events` read, and its `events.k8s.io/v1` form,
 * the same object with newer field names (a kube-apiserver keeps one and converts).
 */

/** What an event is about: `involvedObject` in core v1, `regarding` in events.k8s.io/v1. */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export type EventType = 'Normal' | 'Warning';

/** A core `v1` Event. */
export interface CoreEvent {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: ObjectMeta;
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  source?: { component?: string; host?: string };
  firstTimestamp?: string;
  lastTimestamp?: string;
  count?: number;
  type?: EventType;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  action?: string;
  related?: ObjectReference;
  reportingComponent?: string;
  reportingInstance?: string;
}

/** An `events.k8s.io/v1` Event. */
export interface EventsV1Event {
  apiVersion: 'events.k8s.io/v1';
  kind: 'Event';
  metadata: ObjectMeta;
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: EventType;
  deprecatedSource?: { component?: string; host?: string };
  deprecatedFirstTimestamp?: string;
  deprecatedLastTimestamp?: string;
  deprecatedCount?: number;
}

/** How long an event lives after its last write, as kube-apiserver's `--event-ttl` default. */
export const DEFAULT_EVENT_TTL_MS = 60 * 60 * 1000;

/** When the event was last written: its last occurrence, else its first, else its creation. */
export function eventLastSeen(object: KubeObject): string | undefined {
  const event = object as unknown as CoreEvent;
  return (
    event.series?.lastObservedTime ??
    event.lastTimestamp ??
    event.eventTime ??
    event.firstTimestamp ??
    event.metadata.creationTimestamp
  );
}

/** Copies the defined entries only, so a converted object has no `undefined` fields. */
function defined<T extends object>(entries: T): T {
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined)) as T;
}

/** The core `v1` Event as `events.k8s.io/v1` shows it. */
export function toEventsV1(object: KubeObject): KubeObject {
  const event = object as unknown as CoreEvent;
  return defined({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: event.metadata,
    eventTime: event.eventTime,
    series: event.series,
    reportingController: event.reportingComponent,
    reportingInstance: event.reportingInstance,
    action: event.action,
    reason: event.reason,
    regarding: event.involvedObject,
    related: event.related,
    note: event.message,
    type: event.type,
    deprecatedSource: event.source,
    deprecatedFirstTimestamp: event.firstTimestamp,
    deprecatedLastTimestamp: event.lastTimestamp,
    deprecatedCount: event.count,
  }) as unknown as KubeObject;
}

/** The `events.k8s.io/v1` Event as core `v1` stores it. */
export function fromEventsV1(object: KubeObject): KubeObject {
  const event = object as unknown as EventsV1Event;
  return defined({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: event.metadata,
    involvedObject: event.regarding ?? {},
    reason: event.reason,
    message: event.note,
    source: event.deprecatedSource,
    firstTimestamp: event.deprecatedFirstTimestamp,
    lastTimestamp: event.deprecatedLastTimestamp,
    count: event.deprecatedCount,
    type: event.type,
    eventTime: event.eventTime,
    series: event.series,
    action: event.action,
    related: event.related,
    reportingComponent: event.reportingController,
    reportingInstance: event.reportingInstance,
  }) as unknown as KubeObject;
}
