/** What the worker knows of one connector it runs: its task's state, and what runs it. */
import type { Consumer, Kafka, Producer } from 'kafkajs';
import type { StoredConnector } from './connector-store.js';
import type { SinkPipeline } from './sink-pipeline.js';
import type { SinkTask } from './sink-record.js';
import type { ConnectState, TargetState } from './task-state.js';

/** One running task of a sink: its consumer in the connector's group, and the way its records take. */
export interface SinkTaskRun {
  id: number;
  consumer: Consumer;
  sink: SinkTask;
  pipeline: SinkPipeline;
}

export class ConnectorEntry {
  /** The connector's state as the worker last made it. */
  connectorState: ConnectState = 'UNASSIGNED';
  /** The state of its tasks, which start, stop and restart together. */
  state: ConnectState = 'UNASSIGNED';
  trace: string | undefined;
  /** The task whose failure stopped the connector's tasks. */
  failedTask: number | undefined;
  /** Failures in a row, for the restart delay; a written batch sets it back to 0. */
  failures = 0;
  /** When a failed task restarts (ms since the epoch). */
  retryAt = 0;
  restartRequested = false;
  generation: number;
  target: TargetState;
  kafka: Kafka | undefined;
  /** A sink's running tasks (`tasks.max` of them). */
  tasks: SinkTaskRun[] = [];
  /** A sink's producer of dead-letter records, which its tasks share. */
  deadLetter: Producer | undefined;
  /** The topics the task has read records from, as `GET /connectors/<name>/topics` answers. */
  readonly activeTopics = new Set<string>();

  constructor(public connector: StoredConnector) {
    this.generation = connector.generation;
    this.target = connector.targetState;
  }

  get running(): boolean {
    return this.tasks.length > 0;
  }
}
