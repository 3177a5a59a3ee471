import { describe, expect, it } from 'vitest';
import {
  nextTaskState,
  restartDelayMs,
  type ConnectState,
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
