/**
 * The states of connectors and tasks, as Kafka Connect reports them, and the moves between them.
 * A failed task restarts by itself after a delay that doubles from one second up to a minute.
 */
export const CONNECT_STATES = ['UNASSIGNED', 'RUNNING', 'PAUSED', 'STOPPED', 'FAILED', 'RESTARTING'] as const;
export type ConnectState = (typeof CONNECT_STATES)[number];

/** What the user asked a connector to be (Kafka Connect's target state). */
export type TargetState = 'RUNNING' | 'PAUSED' | 'STOPPED';

export type TaskEvent = 'started' | 'paused' | 'resumed' | 'stopped' | 'failed' | 'restarting';

const MOVES: Record<TaskEvent, { from: readonly ConnectState[]; to: ConnectState }> = {
  started: { from: ['UNASSIGNED', 'RESTARTING', 'STOPPED'], to: 'RUNNING' },
  paused: { from: ['RUNNING'], to: 'PAUSED' },
  resumed: { from: ['PAUSED'], to: 'RUNNING' },
  stopped: { from: CONNECT_STATES, to: 'STOPPED' },
  failed: { from: ['UNASSIGNED', 'RUNNING', 'PAUSED', 'RESTARTING'], to: 'FAILED' },
  restarting: { from: CONNECT_STATES, to: 'RESTARTING' },
};

/** The state `event` leads to from `state`; undefined when the move is not one a task makes. */
export function nextTaskState(state: ConnectState, event: TaskEvent): ConnectState | undefined {
  const move = MOVES[event];
  return move.from.includes(state) ? move.to : undefined;
}

export const FIRST_RESTART_DELAY_MS = 1_000;
export const MAX_RESTART_DELAY_MS = 60_000;

/** How long a task that failed `failures` times in a row waits before it restarts: 1 s, 2 s, 4 s, … 60 s. */
export function restartDelayMs(failures: number): number {
  const exponent = Math.max(0, failures - 1);
  return Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** Math.min(exponent, 16));
}
