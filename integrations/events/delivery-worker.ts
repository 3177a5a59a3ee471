/**
 * Sends pending integration events to their providers. Any number of workers (one per replica)
 * may run against one database: each event is claimed with an atomic update under a lease before
 * it is sent, and a worker that dies mid-send leaves a lease that simply runs out.
 */
import { randomUUID } from 'node:crypto';
import { organizationNamespace } from '../../accounts/organizations.js';
import { INTEGRATION, type Integration } from '../../crds/integration.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { Logger } from '../../observability/logger.js';
import { EgressError, safeFetch, type EgressPolicy } from '../../security/egress.js';
import { readCredentials } from '../credentials.js';
import type { Clock, TimerHandle } from '../../observability/clock.js';
import { isStoreError, type ObjectStore } from '../../control-plane/types.js';
import { isPlatformEventType } from './catalogue.js';
import { destinationOf } from './destinations.js';
import { outboundWebhookId } from './event-ids.js';
import {
  claimEvent,
  completeEvent,
  dueEventIds,
  recordAttempt,
  type AttemptOutcome,
  type EventRow,
} from './event-records.js';
import { UndeliverableError, type ProviderEndpoints } from './forwarding.js';
import { providerRequest } from './provider-requests.js';
import { backoffDelayMs, retryAfterMs, type RetrySchedule } from './retry-schedule.js';
import { standardWebhookHeaders } from './signatures.js';
import { signingSecretOf } from './signing-secrets.js';

export interface DeliveryWorkerDependencies {
  database: DataPlane;
  store: ObjectStore;
  platformKey: Buffer;
  logger: Logger;
  clock: Clock;
  egress: EgressPolicy;
  endpoints: ProviderEndpoints;
  retry: RetrySchedule;
  /** How long a claimed event stays with this worker before another may retry it. */
  leaseMs?: number;
  /** The pause between passes over the queue. */
  pollIntervalMs?: number;
  /** Events claimed per pass. */
  batchSize?: number;
  /** Uniform in [0, 1); the jitter source. */
  random?: () => number;
}

export interface DeliveryWorker {
  /** One pass over the due events, resolving once each claimed one has been attempted; answers how many. */
  runOnce(): Promise<number>;
  /** Stops scheduling passes and waits for the one in progress. */
  stop(): Promise<void>;
}

const DEFAULT_LEASE_MS = 60_000;
const DEFAULT_POLL_INTERVAL_MS = 1_000;
const DEFAULT_BATCH_SIZE = 20;

/** Refusals that say the receiver will never take this event, so retrying only adds load. */
function isPermanentRefusal(status: number): boolean {
  return status >= 400 && status < 500 && ![408, 425, 429].includes(status);
}

function isPermanentEgressRefusal(error: EgressError): boolean {
  return error.reason === 'invalid-url' || error.reason === 'scheme' || error.reason === 'private-address';
}

interface SendResult {
  responseStatus: number | null;
  retryAfter: string | null;
  error?: string;
  permanent: boolean;
}

/** Starts the worker: a pass every `pollIntervalMs` on the injected clock until `stop()`. */
export function startDeliveryWorker(deps: DeliveryWorkerDependencies): DeliveryWorker {
  const owner = `worker-${randomUUID()}`;
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  const random = deps.random ?? Math.random;
  const log = deps.logger.child({ component: 'integration-event-delivery' });
  let timer: TimerHandle | undefined;
  let stopped = false;
  let running: Promise<number> | undefined;

  async function integrationOf(event: EventRow): Promise<Integration | undefined> {
    try {
      return await deps.store.get<Integration>(
        INTEGRATION,
        organizationNamespace(event.organization_id),
        event.integration_id,
      );
    } catch (error) {
      if (isStoreError(error, 'NotFound')) return undefined;
      throw error;
    }
  }

  async function send(event: EventRow): Promise<SendResult> {
    const integration = await integrationOf(event);
    if (!integration?.spec || integration.metadata.deletionTimestamp) {
      return {
        responseStatus: null,
        retryAfter: null,
        error: 'the integration no longer exists',
        permanent: true,
      };
    }
    if (!isPlatformEventType(event.event_type)) {
      return { responseStatus: null, retryAfter: null, error: 'unknown event type', permanent: true };
    }
    const destination = destinationOf(integration.spec, event.event_type);
    if (!destination) {
      return {
        responseStatus: null,
        retryAfter: null,
        error: 'the integration no longer takes this event (disabled or filtered)',
        permanent: true,
      };
    }
    try {
      const request = providerRequest(
        destination,
        {
          id: event.id,
          organizationId: event.organization_id,
          type: event.event_type,
          subject: event.subject,
          payload: JSON.parse(event.payload) as Record<string, unknown>,
          createdAt: event.created_at,
        },
        integration.spec.configuration ?? {},
        await readCredentials(deps.database, deps.platformKey, event.integration_id),
        deps.endpoints,
      );
      const now = deps.clock.now();
      const secret = await signingSecretOf(deps.database, deps.platformKey, event.integration_id, now);
      const response = await safeFetch(
        request.url,
        {
          method: 'POST',
          headers: { ...request.headers, ...standardWebhookHeaders(secret, event.id, now, request.body) },
          body: request.body,
        },
        deps.egress,
      );
      if (response.ok) return { responseStatus: response.status, retryAfter: null, permanent: false };
      return {
        responseStatus: response.status,
        retryAfter: response.headers.get('retry-after'),
        error: `the receiver answered ${response.status}`,
        permanent: isPermanentRefusal(response.status),
      };
    } catch (error) {
      if (error instanceof UndeliverableError) {
        return { responseStatus: null, retryAfter: null, error: error.message, permanent: true };
      }
      if (error instanceof EgressError) {
        return {
          responseStatus: null,
          retryAfter: null,
          error: error.message,
          permanent: isPermanentEgressRefusal(error),
        };
      }
      throw error;
    }
  }

  function outcomeOf(event: EventRow, result: SendResult): AttemptOutcome {
    const now = deps.clock.now();
    if (result.error === undefined)
      return { status: 'success', responseStatus: result.responseStatus ?? 0, at: now };
    const spent = event.attempts >= deps.retry.maxAttempts;
    const waitMs = Math.max(
      backoffDelayMs(event.attempts, deps.retry, random),
      retryAfterMs(result.retryAfter, now) ?? 0,
    );
    return {
      status: result.permanent || spent ? 'dead' : 'failed',
      responseStatus: result.responseStatus,
      error: result.error,
      nextAttemptAt: new Date(now.getTime() + waitMs),
    };
  }

  async function attempt(event: EventRow): Promise<void> {
    const started = performance.now();
    const result = await send(event);
    const outcome = outcomeOf(event, result);
    await recordAttempt(deps.database, {
      webhook_id: outboundWebhookId(event.integration_id),
      integration_id: event.integration_id,
      event: event.event_type,
      status: outcome.status === 'success' ? 'success' : 'failed',
      status_code: result.responseStatus ?? 0,
      duration_ms: Math.round(performance.now() - started),
      timestamp: deps.clock.now().toISOString(),
      delivery_id: `${event.id}:${event.attempts}`,
    });
    const kept = await completeEvent(deps.database, event.id, owner, outcome);
    log.info(
      {
        event_id: event.id,
        integration_id: event.integration_id,
        event_type: event.event_type,
        attempt: event.attempts,
        outcome: outcome.status,
        response_status: result.responseStatus,
        ...(kept ? {} : { lease_lost: true }),
      },
      'integration event delivery attempted',
    );
  }

  async function pass(): Promise<number> {
    const now = deps.clock.now();
    const ids = await dueEventIds(deps.database, now, deps.batchSize ?? DEFAULT_BATCH_SIZE);
    const claimed: EventRow[] = [];
    for (const id of ids) {
      const event = await claimEvent(deps.database, id, owner, now, leaseMs);
      if (event) claimed.push(event);
    }
    await Promise.all(
      claimed.map((event) =>
        attempt(event).catch((error: unknown) => {
          // The lease runs out and the event is retried; the failure is ours, not the receiver's.
          log.error({ event_id: event.id, err: error }, 'integration event delivery broke');
        }),
      ),
    );
    return claimed.length;
  }

  function runOnce(): Promise<number> {
    const current = pass();
    running = current;
    return current;
  }

  function schedule(): void {
    if (stopped) return;
    timer = deps.clock.setTimeout(() => {
      runOnce()
        .catch((error: unknown) => log.error({ err: error }, 'integration event queue unreadable'))
        .finally(schedule);
    }, deps.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
  }

  schedule();
  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) deps.clock.clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
