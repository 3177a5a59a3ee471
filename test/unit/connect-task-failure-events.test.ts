import { describe, expect, it } from 'vitest';
import { errorOfTrace, newlyFailedTasks, taskFailureMessage } from '../../connect/task-failure-events.js';

/** Which reported tasks deserve a ConnectorTaskFailed event, and what it says. */

describe('newlyFailedTasks', () => {
  it.each([
    { what: 'a first report of a failed task', previous: undefined, next: ['FAILED'], failed: [0] },
    { what: 'a task that just failed', previous: ['RUNNING'], next: ['FAILED'], failed: [0] },
    { what: 'a task still failed', previous: ['FAILED'], next: ['FAILED'], failed: [] },
    {
      what: 'a task that failed again after running',
      previous: ['RUNNING', 'FAILED'],
      next: ['FAILED', 'FAILED'],
      failed: [0],
    },
    { what: 'tasks that run', previous: ['FAILED'], next: ['RUNNING'], failed: [] },
  ])('$what', ({ previous, next, failed }) => {
    const tasks = (states: string[]) => states.map((state, id) => ({ id, state, worker_id: 'w' }));
    expect(newlyFailedTasks(previous && tasks(previous), tasks(next)).map((task) => task.id)).toEqual(failed);
  });
});

describe('the event message', () => {
  it.each([
    {
      trace: 'org.apache.kafka.connect.errors.ConnectException: refused\n\tat Some.frame(Some.java:1)',
      error: 'org.apache.kafka.connect.errors.ConnectException: refused',
    },
    { trace: '  \n', error: 'no reason given' },
    { trace: undefined, error: 'no reason given' },
  ])('takes the first line of a trace: $error', ({ trace, error }) => {
    expect(errorOfTrace(trace)).toBe(error);
  });

  it('names the connector, the task, the error and what to do', () => {
    expect(taskFailureMessage('orders-sink', 1, 'connection refused')).toBe(
      'connector orders-sink task 1 failed: connection refused. It restarts by itself with a growing ' +
        'delay: fix what the error names, or the configuration (PUT /connectors/orders-sink/config)',
    );
  });
});
