/**
 * A connector task that failed, told as a Warning Event `ConnectorTaskFailed` on the connector's
 * StreamingCluster: connectors are no objects of their own, and the cluster is what
 * `kubectl describe` shows. A task failing again the same way counts on the same Event, as the
 * recorder aggregates repeats. Both the in-process worker and, in cluster mode, the one that
 * reads the Connect workers' reports tell failures this way.
 */
import type { EventRecorder } from '../controllers/runtime/event-recorder.js';
import type { Logger } from '../observability/logger.js';
import type { ClusterAccess } from './cluster-access.js';
import type { StoredConnector } from './connector-store.js';

export const CONNECTOR_TASK_FAILED = 'ConnectorTaskFailed';

export type TaskFailureReporter = (connector: StoredConnector, task: number, error: string) => void;

/** The Event's message: which connector and task, the error, and what to do. */
export function taskFailureMessage(connector: string, task: number, error: string): string {
  return (
    `connector ${connector} task ${task} failed: ${error}. It restarts by itself with a growing ` +
    `delay: fix what the error names, or the configuration (PUT /connectors/${connector}/config)`
  );
}

/** The first line of a trace: a Java stack trace's exception and message. */
export function errorOfTrace(trace: string | undefined): string {
  return trace?.split('\n', 1)[0]?.trim() || 'no reason given';
}

/** The tasks that are FAILED now and were not in the previous report, with their traces. */
export function newlyFailedTasks(
  previous: readonly { id: number; state: string }[] | undefined,
  next: readonly { id: number; state: string; trace?: string }[],
): { id: number; trace?: string }[] {
  const failedBefore = new Set(
    (previous ?? []).filter((task) => task.state === 'FAILED').map((task) => task.id),
  );
  return next.filter((task) => task.state === 'FAILED' && !failedBefore.has(task.id));
}

/** A reporter writing through `events`; one that does nothing without a recorder. */
export function taskFailureReporter(deps: {
  events?: EventRecorder;
  access: ClusterAccess;
  logger: Logger;
}): TaskFailureReporter {
  const { events, access, logger } = deps;
  return (connector, task, error) => {
    if (!events) return;
    access
      .clusterObject(connector.namespace, connector.cluster)
      .then((cluster) => {
        if (cluster)
          events.warning(cluster, CONNECTOR_TASK_FAILED, taskFailureMessage(connector.name, task, error));
      })
      .catch((lookupError: unknown) =>
        logger.warn(
          { err: lookupError, connector: `${connector.cluster}/${connector.name}` },
          'could not record the task failure',
        ),
      );
  };
}
