import { KAFKA_LONG_MAX as NEVER } from '../../runtime.js';

/**
 * When appends reach the disk: Kafka's `flush.messages` and `flush.ms`. A topic at one message
 * (the platform's default) has every append fsynced before it is answered; a topic allowed more
 * is answered once its append is written to the operating system (it survives the broker process
 * being killed, not a power loss) and is fsynced when its partition holds that many unflushed
 * messages, or held the oldest of them that long.
 */

export interface FlushPolicy {
  /** Messages a partition may hold unflushed; 1: each append is durable before it is answered. */
  flushMessages: number;
  /** ms the oldest unflushed message may wait; 0: each append is durable before it is answered. */
  flushMs: number;
}

/** The platform's default: every append durable before it is answered. */
export const DURABLE: FlushPolicy = { flushMessages: 1, flushMs: NEVER };

export { NEVER };

/**
 * How long committed consumer offsets may wait for their fsync. An OffsetCommit is answered once
 * it is written to the operating system, as Kafka answers one on its offsets topic (whose flush is
 * Kafka's default): it survives the broker process being killed; a power loss within this window
 * takes the group back to an earlier committed offset, a re-delivery that at-least-once consumers
 * handle already. Appends keep their topic's flush policy; transaction ends are always fsynced.
 */
export const OFFSET_COMMIT_FLUSH_MS = 1_000;

/** What a partition holds that has not been fsynced yet. */
export interface Unflushed {
  messages: number;
  /** When the oldest of them was written (ms). */
  since: number;
}

/**
 * Whether appending `messages` to a partition holding `unflushed` must be fsynced before it is
 * answered: the count reaches `flush.messages` or the oldest has waited `flush.ms`.
 */
export function flushDue(
  policy: FlushPolicy,
  unflushed: Unflushed | undefined,
  messages: number,
  now: number,
): boolean {
  const count = (unflushed?.messages ?? 0) + messages;
  const since = unflushed?.since ?? now;
  return count >= policy.flushMessages || now - since >= policy.flushMs;
}

/** When the oldest unflushed message of a partition must be fsynced at the latest (ms). */
export function flushDeadline(policy: FlushPolicy, unflushed: Unflushed): number {
  return unflushed.since + policy.flushMs;
}
