/** What the worker knows of one connector it runs: its task's state, and what runs it. */
import type { Consumer, Kafka } from 'kafkajs';
import type { StoredConnector } from './connector-store.js';
import type { SinkTask } from './sink-record.js';
import type { ConnectState, TargetState } from './task-state.js';

export class ConnectorEntry {
  /** The connector's state as the worker last made it. */
  connectorState: ConnectState = 'UNASSIGNED';
  /** The task's state (one task per connector). */
  state: ConnectState = 'UNASSIGNED';
  trace: string | undefined;
  /** Failures in a row, for the restart delay; a written batch sets it back to 0. */
  failures = 0;
  /** When a failed task restarts (ms since the epoch). */
  retryAt = 0;
  restartRequested = false;
  generation: number;
  target: TargetState;
  kafka: Kafka | undefined;
  consumer: Consumer | undefined;
  sink: SinkTask | undefined;
  /** The topics the task has read records from, as `GET /connectors/<name>/topics` answers. */
  readonly activeTopics = new Set<string>();

  constructor(public connector: StoredConnector) {
    this.generation = connector.generation;
    this.target = connector.targetState;
  }

  get running(): boolean {
    return this.consumer !== undefined;
  }
}
