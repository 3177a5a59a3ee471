import { isAllowed } from '../acl.js';
import type { KafkaCluster } from '../cluster.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import { lastOffsetOf } from '../records.js';
import type { ApiModule } from './api.js';
import type { Principal } from '../acl.js';
import type { AbortedTransaction } from '../log-store.js';

interface FetchPartition {
  partition: number;
  fetchOffset: number;
  maxBytes: number;
}

interface FetchTopic {
  name: string;
  partitions: FetchPartition[];
}

interface PartitionData {
  partition: number;
  errorCode: number;
  highWatermark: number;
  lastStableOffset: number;
  logStartOffset: number;
  /** Null for read_uncommitted, whose readers are not told. */
  abortedTransactions: AbortedTransaction[] | null;
  batches: Buffer[];
  bytes: number;
}

/** The longest a fetch may wait, whatever the client asks. */
const MAX_WAIT_MS = 30_000;

const READ_COMMITTED = 1;

function collect(
  cluster: KafkaCluster,
  principal: Principal,
  topics: FetchTopic[],
  maxBytes: number,
  readCommitted: boolean,
) {
  let total = 0;
  const answers = topics.map((topic) => {
    const readable = isAllowed(principal, 'topic', topic.name, 'read');
    const stored = readable ? cluster.store.topic(topic.name) : undefined;
    const partitions = topic.partitions.map((request): PartitionData => {
      const answer = (
        errorCode: number,
        highWatermark = -1,
        logStartOffset = -1,
        lastStableOffset = -1,
      ): PartitionData => ({
        partition: request.partition,
        errorCode,
        highWatermark,
        lastStableOffset,
        logStartOffset,
        abortedTransactions: null,
        batches: [],
        bytes: 0,
      });
      if (!readable) return answer(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      const state = stored ? cluster.store.partition(topic.name, request.partition) : undefined;
      if (!state) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      if (request.fetchOffset < state.logStartOffset || request.fetchOffset > state.logEndOffset) {
        return answer(ErrorCode.OFFSET_OUT_OF_RANGE, state.logEndOffset, state.logStartOffset);
      }
      const stable = cluster.store.lastStableOffset(topic.name, request.partition);
      const data = answer(ErrorCode.NONE, state.logEndOffset, state.logStartOffset, stable);
      // read_committed readers see nothing at or past the first offset of an open transaction.
      const end = readCommitted ? stable : state.logEndOffset;
      if (readCommitted) data.abortedTransactions = [];
      const room = Math.min(request.maxBytes, maxBytes - total);
      if (request.fetchOffset >= end || (room <= 0 && total > 0)) return data;
      // The first batch comes whatever its size (KIP-74), so a large record never blocks a consumer.
      for (const batch of cluster.store.read(
        topic.name,
        request.partition,
        request.fetchOffset,
        Math.max(room, 1),
        end,
      )) {
        if (total > 0 && data.bytes + batch.length > room) break;
        data.batches.push(batch);
        data.bytes += batch.length;
        total += batch.length;
      }
      const last = data.batches.at(-1);
      if (readCommitted && last) {
        data.abortedTransactions = cluster.store.abortedTransactions(
          topic.name,
          request.partition,
          request.fetchOffset,
          lastOffsetOf(last),
        );
      }
      return data;
    });
    return { name: topic.name, partitions };
  });
  return { answers, total };
}

/**
 * Fetch (v4+, RecordBatch): the stored batches as they are, from the one holding the fetch offset.
 * read_committed readers get batches only below the last stable offset, with the aborted
 * transactions among them, whose records their clients skip.
 * Waits up to max_wait_ms for min_bytes, waking on an append to any asked-for partition.
 * Sessionless only (KIP-227 sessions are answered with session id 0, which clients accept).
 */
export const fetch: ApiModule = {
  key: 1,
  name: 'Fetch',
  minVersion: 4,
  maxVersion: 11,
  async handle(context, reader) {
    const { version, cluster, principal } = context;
    reader.int32();
    const maxWaitMs = Math.min(Math.max(0, reader.int32()), MAX_WAIT_MS);
    const minBytes = reader.int32();
    const maxBytes = reader.int32();
    const readCommitted = reader.int8() === READ_COMMITTED;
    if (version >= 7) {
      reader.int32();
      reader.int32();
    }
    const topics = reader.array((topicReader): FetchTopic => ({
      name: topicReader.string(),
      partitions: topicReader.array((partitionReader) => {
        const partition = partitionReader.int32();
        if (version >= 9) partitionReader.int32();
        const fetchOffset = partitionReader.int64();
        if (version >= 5) partitionReader.int64();
        return { partition, fetchOffset, maxBytes: partitionReader.int32() };
      }),
    }));
    if (version >= 7) reader.array((r) => ({ topic: r.string(), partitions: r.array((p) => p.int32()) }));
    if (version >= 11) reader.string();

    const deadline = Date.now() + maxWaitMs;
    let result = collect(cluster, principal, topics, maxBytes, readCommitted);
    const watched = topics.flatMap((topic) =>
      topic.partitions.map((entry) => ({ topic: topic.name, partition: entry.partition })),
    );
    while (result.total < Math.max(1, minBytes) && Date.now() < deadline && watched.length > 0) {
      await cluster.waitForAppend(watched, deadline - Date.now());
      result = collect(cluster, principal, topics, maxBytes, readCommitted);
    }

    const writer = new Writer().int32(0);
    if (version >= 7) writer.int16(ErrorCode.NONE).int32(0);
    writer.array(result.answers, (w, topic) => {
      w.string(topic.name).array(topic.partitions, (pw, data) => {
        pw.int32(data.partition).int16(data.errorCode).int64(data.highWatermark).int64(data.lastStableOffset);
        if (version >= 5) pw.int64(data.logStartOffset);
        pw.nullableArray(data.abortedTransactions, (aw, aborted) =>
          aw.int64(aborted.producerId).int64(aborted.firstOffset),
        );
        if (version >= 11) pw.int32(-1);
        pw.int32(data.bytes);
        for (const batch of data.batches) pw.raw(batch);
      });
    });
    return writer;
  },
};
