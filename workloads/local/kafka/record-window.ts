/**
 * Which stored records a message browser gets: from an offset on, or the newest ones, in one
 * partition or across all, within a count and a byte budget. Read straight from the log store,
 * as the platform, so no consumer group or committed offset is touched.
 */
import type { RecordsRequest, TopicRecord } from '../../runtime.js';
import type { LogStore } from './log-store.js';
import { readableRecords } from './records.js';

/** Bytes fetched from the store per step while walking a partition. */
const READ_CHUNK_BYTES = 256 * 1024;
const LAST_OFFSET_DELTA_AT = 23;

function partitionRecords(
  store: LogStore,
  topic: string,
  partition: number,
  request: RecordsRequest,
): TopicRecord[] {
  const state = store.partition(topic, partition);
  if (!state || state.logEndOffset <= state.logStartOffset) return [];
  const start = Math.max(state.logStartOffset, request.offset ?? state.logEndOffset - request.limit);
  const found: TopicRecord[] = [];
  let from = start;
  while (found.length < request.limit && from < state.logEndOffset) {
    const batches = store.read(topic, partition, from, READ_CHUNK_BYTES);
    if (batches.length === 0) break;
    for (const batch of batches) {
      from = Number(batch.readBigInt64BE(0)) + batch.readInt32BE(LAST_OFFSET_DELTA_AT) + 1;
      for (const record of readableRecords(batch) ?? []) {
        if (record.offset >= start && found.length < request.limit) found.push({ partition, ...record });
      }
    }
  }
  return found;
}

const inOrder = (a: TopicRecord, b: TopicRecord) =>
  a.timestamp - b.timestamp || a.partition - b.partition || a.offset - b.offset;

const sizeOf = (record: TopicRecord) => (record.key?.length ?? 0) + (record.value?.length ?? 0);

/**
 * The records asked for, oldest first: with an offset, the first `limit` from it (in each
 * partition, then merged by time); without, the newest `limit`. Batches in a codec the platform
 * cannot open (snappy, lz4, zstd) are passed over.
 */
export function readRecordWindow(
  store: LogStore,
  topic: string,
  partitions: readonly number[],
  request: RecordsRequest,
): TopicRecord[] {
  const merged = partitions
    .flatMap((partition) => partitionRecords(store, topic, partition, request))
    .sort(inOrder);
  const window = request.offset === undefined ? merged.slice(-request.limit) : merged.slice(0, request.limit);
  const kept: TopicRecord[] = [];
  let bytes = 0;
  for (const record of window) {
    bytes += sizeOf(record);
    if (kept.length > 0 && bytes > request.maxBytes) break;
    kept.push(record);
  }
  return kept;
}
