import { describe, expect, it } from 'vitest';
import { DURABLE, flushDeadline, flushDue, NEVER } from '../../workloads/local/kafka/flush-policy.js';
import { kafkaLongOf, kafkaLongText } from '../../workloads/runtime.js';

describe('flush policy', () => {
  it.each([
    ['the durable default, any append', DURABLE, undefined, 1, 0, true],
    ['flush.ms 0, any append', { flushMessages: NEVER, flushMs: 0 }, undefined, 1, 0, true],
    [
      "Kafka's default, many unflushed",
      { flushMessages: NEVER, flushMs: NEVER },
      { messages: 1e9, since: 0 },
      500,
      1e9,
      false,
    ],
    [
      'under flush.messages',
      { flushMessages: 100, flushMs: NEVER },
      { messages: 50, since: 0 },
      49,
      0,
      false,
    ],
    [
      'reaching flush.messages',
      { flushMessages: 100, flushMs: NEVER },
      { messages: 50, since: 0 },
      50,
      0,
      true,
    ],
    ['before flush.ms', { flushMessages: NEVER, flushMs: 1000 }, { messages: 5, since: 0 }, 1, 999, false],
    ['at flush.ms', { flushMessages: NEVER, flushMs: 1000 }, { messages: 5, since: 0 }, 1, 1000, true],
  ] as const)('%s: due %s', (_case, policy, unflushed, messages, now, due) => {
    expect(flushDue(policy, unflushed, messages, now)).toBe(due);
  });

  it('fsyncs the oldest unflushed message by flush.ms after it', () => {
    expect(flushDeadline({ flushMessages: NEVER, flushMs: 250 }, { messages: 3, since: 1000 })).toBe(1250);
    expect(flushDeadline({ flushMessages: 10, flushMs: NEVER }, { messages: 3, since: 1000 })).toBe(NEVER);
  });

  it.each([
    ['1', 1],
    ['0', 0],
    ['-1', -1],
    ['-9223372036854775808', -9223372036854775808],
    ['-9223372036854775809', undefined],
    ['9007199254740991', 9007199254740991],
    ['9007199254740992', NEVER],
    ['9223372036854775807', NEVER],
    ['9223372036854775808', undefined],
    ['1.5', undefined],
    ['', undefined],
    ['ten', undefined],
  ] as const)('reads %j as %s', (text, value) => {
    expect(kafkaLongOf(text)).toBe(value);
  });

  it("shows Long.MAX_VALUE as Kafka's default", () => {
    expect(kafkaLongText(NEVER)).toBe('9223372036854775807');
    expect(kafkaLongText(1)).toBe('1');
  });
});
