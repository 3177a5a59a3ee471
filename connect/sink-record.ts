/**
 * Records as sinks take them: Connect records (their key and value converted, transformed) with
 * where they were consumed, and the task a sink runs.
 */
import type { ConnectRecord } from './connect-record.js';

export interface SinkRecord extends ConnectRecord {
  partition: number;
  /** The consumed record's offset. */
  offset: number;
  /** The topic it was consumed from, when a transform renamed it; its own topic otherwise. */
  originalTopic?: string;
  /** The partition it was consumed from, when a transform changed it. */
  originalPartition?: number;
}

/** Where a sink's consumer may resume: the next offset of each topic-partition it has written. */
export type CommittableOffsets = { topic: string; partition: number; offset: number }[];

/** A sink task: opened once, given batches, closed. */
export interface SinkTask {
  /** The Java class of the task, as errors and the dead-letter headers name it. */
  readonly className: string;
  start(): Promise<void>;
  /** Writes the records; answers the offsets now safe to commit. */
  put(records: SinkRecord[]): Promise<CommittableOffsets>;
  stop(): Promise<void>;
}

/** The topic-partition a record was consumed from. */
export const consumedFrom = (record: SinkRecord) => ({
  topic: record.originalTopic ?? record.topic,
  partition: record.originalPartition ?? record.partition,
});

/** The next offset of each consumed topic-partition in `records`. */
export function nextOffsetsOf(records: readonly SinkRecord[]): CommittableOffsets {
  return latestOffsetsOf(records.map((record) => ({ ...consumedFrom(record), offset: record.offset + 1 })));
}

/** The furthest of each topic-partition's offsets. */
export function latestOffsetsOf(offsets: CommittableOffsets): CommittableOffsets {
  const latest = new Map<string, { topic: string; partition: number; offset: number }>();
  for (const next of offsets) {
    const id = `${next.topic}\u0000${next.partition}`;
    if ((latest.get(id)?.offset ?? -1) < next.offset) latest.set(id, next);
  }
  return [...latest.values()];
}
