import { describe, expect, it } from 'vitest';
import type { Condition } from '../../control-plane/types.js';
import { clusterEvents } from '../../controllers/streaming/engine.js';

const storage = (status: 'True' | 'False'): Condition => ({
  type: 'StorageNearLimit',
  status,
  reason: status === 'True' ? 'StorageNearLimit' : 'WithinLimit',
  message: status === 'True' ? 'the cluster holds 9 GB of its tier’s 10 GB' : 'within its tier',
  lastTransitionTime: '2026-03-01T10:00:00Z',
});

describe('the events of a streaming cluster’s status', () => {
  it.each([
    ['none on the first status', undefined, { brokers: 1 }, []],
    [
      'Scaled when the tier changes its brokers',
      { brokers: 1 },
      { brokers: 3 },
      [['Normal', 'Scaled', 'the cluster runs 3 brokers (it ran 1)']],
    ],
    ['none while the brokers stay', { brokers: 3 }, { brokers: 3 }, []],
    [
      'a Warning when storage nears the tier’s',
      { brokers: 1, conditions: [storage('False')] },
      { brokers: 1, conditions: [storage('True')] },
      [['Warning', 'StorageNearLimit', 'the cluster holds 9 GB of its tier’s 10 GB']],
    ],
    [
      'none while storage stays near it',
      { conditions: [storage('True')] },
      { conditions: [storage('True')] },
      [],
    ],
  ])('%s', (_name, previous, next, expected) => {
    expect(clusterEvents(previous, next).map((event) => [event.type, event.reason, event.message])).toEqual(
      expected,
    );
  });
});
