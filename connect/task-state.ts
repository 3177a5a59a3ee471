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

/** What `POST /connectors/<name>/restart?includeTasks=…&onlyFailed=…` restarts, as Kafka Connect's restart plan decides. */
export interface RestartPlan {
  connector: boolean;
  tasks: number[];
}

/**
 * The connector restarts unless only failed ones are asked for and it has not failed; its tasks
 * restart only with `includeTasks`, and then only the failed ones with `onlyFailed`.
 */
export function restartPlanOf(
  status: { connector: { state: ConnectState }; tasks: readonly { id: number; state: ConnectState }[] },
  options: { includeTasks: boolean; onlyFailed: boolean },
): RestartPlan {
  const restarts = (state: ConnectState) => !options.onlyFailed || state === 'FAILED';
  return {
    connector: restarts(status.connector.state),
    tasks: options.includeTasks
      ? status.tasks.filter((task) => restarts(task.state)).map((task) => task.id)
      : [],
  };
}

/** The status a restart answers with (202): what the plan restarts shown RESTARTING, the rest as it is. */
export function statusUnderRestart<
  S extends { connector: { state: ConnectState }; tasks: readonly { id: number; state: ConnectState }[] },
>(status: S, plan: RestartPlan): S {
  const restarting = <T extends { state: ConnectState; trace?: string }>({ trace: _trace, ...rest }: T) => ({
    ...rest,
    state: 'RESTARTING' as const,
  });
  return {
    ...status,
    connector: plan.connector ? restarting(status.connector) : status.connector,
    tasks: status.tasks.map((task) => (plan.tasks.includes(task.id) ? restarting(task) : task)),
  };
}
