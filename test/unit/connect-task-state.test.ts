import { describe, expect, it } from 'vitest';
import {
  nextTaskState,
  restartDelayMs,
  restartPlanOf,
  statusUnderRestart,
  type ConnectState,
  type RestartPlan,
  type TaskEvent,
} from '../../connect/task-state.js';

describe('task states', () => {
  it.each<[ConnectState, TaskEvent, ConnectState | undefined]>([
    ['UNASSIGNED', 'started', 'RUNNING'],
    ['RESTARTING', 'started', 'RUNNING'],
    ['STOPPED', 'started', 'RUNNING'],
    ['RUNNING', 'started', undefined],
    ['RUNNING', 'paused', 'PAUSED'],
    ['STOPPED', 'paused', undefined],
    ['PAUSED', 'resumed', 'RUNNING'],
    ['RUNNING', 'resumed', undefined],
    ['RUNNING', 'failed', 'FAILED'],
    ['PAUSED', 'failed', 'FAILED'],
    ['STOPPED', 'failed', undefined],
    ['FAILED', 'failed', undefined],
    ['FAILED', 'restarting', 'RESTARTING'],
    ['PAUSED', 'stopped', 'STOPPED'],
    ['FAILED', 'stopped', 'STOPPED'],
  ])('from %s, %s leads to %s', (state, event, next) => {
    expect(nextTaskState(state, event)).toBe(next);
  });
});

describe('restart delays', () => {
  it.each([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [6, 32_000],
    [7, 60_000],
    [50, 60_000],
  ])('after %i failures in a row a task waits %i ms', (failures, delay) => {
    expect(restartDelayMs(failures)).toBe(delay);
  });
});

describe('restart plans', () => {
  const status = (connector: ConnectState, ...tasks: ConnectState[]) => ({
    connector: { state: connector },
    tasks: tasks.map((state, id) => ({ id, state })),
  });
  it.each<[string, ReturnType<typeof status>, boolean, boolean, RestartPlan]>([
    ['the plain restart', status('RUNNING', 'RUNNING'), false, false, { connector: true, tasks: [] }],
    ['includeTasks', status('RUNNING', 'RUNNING', 'FAILED'), true, false, { connector: true, tasks: [0, 1] }],
    [
      'includeTasks and onlyFailed',
      status('RUNNING', 'RUNNING', 'FAILED'),
      true,
      true,
      { connector: false, tasks: [1] },
    ],
    [
      'onlyFailed of a failed connector',
      status('FAILED', 'FAILED'),
      false,
      true,
      { connector: true, tasks: [] },
    ],
    [
      'onlyFailed with nothing failed',
      status('RUNNING', 'RUNNING'),
      true,
      true,
      { connector: false, tasks: [] },
    ],
  ])('%s', (_case, current, includeTasks, onlyFailed, plan) => {
    expect(restartPlanOf(current, { includeTasks, onlyFailed })).toEqual(plan);
  });

  it('answers what it restarts as RESTARTING, without its trace', () => {
    const current = {
      connector: { state: 'RUNNING' as const },
      tasks: [
        { id: 0, state: 'FAILED' as const, trace: 'boom' },
        { id: 1, state: 'RUNNING' as const },
      ],
    };
    expect(statusUnderRestart(current, { connector: false, tasks: [0] })).toEqual({
      connector: { state: 'RUNNING' },
      tasks: [
        { id: 0, state: 'RESTARTING' },
        { id: 1, state: 'RUNNING' },
      ],
    });
  });
});
