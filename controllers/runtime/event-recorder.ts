import os from 'node:os';
import { EVENT_KIND } from '../../control-plane/built-in-kinds.js';
import type { CoreEvent, EventType, ObjectReference } from '../../control-plane/event-objects.js';
import { isStoreError, type KubeObject, type ObjectStore } from '../../control-plane/types.js';
import type { Logger } from '../../observability/logger.js';
import type { Clock } from '../../observability/clock.js';
import { EventCorrelator, type Correlation, type CorrelatorOptions } from './event-correlator.js';

/**
 * Records Kubernetes Events about the objects controllers reconcile, as client-go's
 * `EventRecorder`: `kubectl describe` and `kubectl events` show them. Recording never fails and
 * never waits: the writes happen behind, in order, and a failed write is logged.
 */
export interface EventRecorder {
  /** Something a person cares about went as expected: created, provisioned, available, deleted. */
  normal(object: KubeObject, reason: string, message: string): void;
  /** Something is stuck or failed; the message says what to do about it. */
  warning(object: KubeObject, reason: string, message: string): void;
}

export interface StoreEventRecorderOptions extends CorrelatorOptions {
  /** Where Events are written: the same store the controllers use. */
  store: ObjectStore;
  clock: Clock;
  logger: Logger;
  /** `source.component` and `reportingComponent`. */
  component: string;
  /** `source.host` and `reportingInstance`; the host name by default. */
  instance?: string;
}

/**
 * `message` with the user and password of any URL in it masked: an Event is readable by whoever
 * may list events in the namespace, and error messages sometimes quote a connection URL.
 */
export function withoutUrlCredentials(message: string): string {
  return message.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1***@');
}

/** The reference an Event keeps of its object. */
export function referenceTo(object: KubeObject): ObjectReference {
  const reference: ObjectReference = {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.metadata.name,
  };
  if (object.metadata.namespace !== undefined) reference.namespace = object.metadata.namespace;
  if (object.metadata.uid !== undefined) reference.uid = object.metadata.uid;
  if (object.metadata.resourceVersion !== undefined)
    reference.resourceVersion = object.metadata.resourceVersion;
  return reference;
}

/** An `EventRecorder` writing core `v1` Events through an `ObjectStore`, either backend. */
export class StoreEventRecorder implements EventRecorder {
  private readonly correlator: EventCorrelator;
  private readonly instance: string;
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly options: StoreEventRecorderOptions) {
    this.correlator = new EventCorrelator(options);
    this.instance = options.instance ?? os.hostname();
  }

  normal(object: KubeObject, reason: string, message: string): void {
    this.record(object, 'Normal', reason, message);
  }

  warning(object: KubeObject, reason: string, message: string): void {
    this.record(object, 'Warning', reason, message);
  }

  /** Resolves once every event recorded so far is written (or its write failed and was logged). */
  flush(): Promise<void> {
    return this.writes;
  }

  private record(object: KubeObject, type: EventType, reason: string, message: string): void {
    const involvedObject = referenceTo(object);
    const now = this.options.clock.now();
    const correlation = this.correlator.correlate(
      { involvedObject, type, reason, message: withoutUrlCredentials(message) },
      now,
    );
    if (correlation.action === 'drop') {
      this.options.logger.debug({ reason, type }, 'event dropped by the spam filter');
      return;
    }
    const write = () => this.write(involvedObject, type, reason, correlation, now);
    this.writes = this.writes.then(write).catch((error: unknown) => {
      this.options.logger.warn({ err: error, reason, type }, 'could not record an event');
    });
  }

  private async write(
    involvedObject: ObjectReference,
    type: EventType,
    reason: string,
    correlation: Exclude<Correlation, { action: 'drop' }>,
    now: Date,
  ): Promise<void> {
    const { store } = this.options;
    // Events of cluster-scoped objects live in `default`, as client-go puts them.
    const namespace = involvedObject.namespace ?? 'default';
    const lastTimestamp = now.toISOString();
    if (correlation.action === 'count') {
      try {
        await store.patch(EVENT_KIND, namespace, correlation.name, {
          count: correlation.count,
          lastTimestamp,
          message: correlation.message,
        });
        return;
      } catch (error) {
        if (!isStoreError(error, 'NotFound')) throw error;
        // Expired or removed: written anew, with the count it had, as client-go does.
        correlation = {
          ...correlation,
          name: this.correlator.renew(correlation.key, involvedObject, now),
        };
      }
    }
    const event: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: correlation.name, namespace },
      involvedObject,
      reason,
      message: correlation.message,
      source: { component: this.options.component, host: this.instance },
      firstTimestamp: correlation.firstTimestamp,
      lastTimestamp,
      count: correlation.count,
      type,
      reportingComponent: this.options.component,
      reportingInstance: this.instance,
    };
    await store.create(EVENT_KIND, event as unknown as KubeObject);
  }
}
