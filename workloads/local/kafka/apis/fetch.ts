import { isAllowed } from '../acl.js';
import type { KafkaCluster } from '../cluster.js';
import { ErrorCode } from '../errors.js';
import { Writer, ZERO_UUID } from '../protocol/codec.js';
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
  /** Empty for a topic id (v13+) no topic has. */
  name: string;
  topicId: string;
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
      if (topic.name === '') return answer(ErrorCode.UNKNOWN_TOPIC_ID);
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
    return { name: topic.name, topicId: topic.topicId, partitions };
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
  maxVersion: 17,
  flexibleVersion: 12,
  async handle(context, reader) {
    const { version, cluster, principal } = context;
    if (version <= 14) reader.int32();
    const maxWaitMs = Math.min(Math.max(0, reader.int32()), MAX_WAIT_MS);
    const minBytes = reader.int32();
    const maxBytes = reader.int32();
    const readCommitted = reader.int8() === READ_COMMITTED;
    if (version >= 7) {
      reader.int32();
      reader.int32();
    }
    // From v13 topics are named by id.
    const byId =
      version >= 13 ? new Map(cluster.store.topics().map((topic) => [topic.topicId, topic.name])) : undefined;
    const topics = reader.array((topicReader): FetchTopic => {
      const topicId = byId ? topicReader.uuid() : ZERO_UUID;
      const name = byId ? (byId.get(topicId) ?? '') : topicReader.string();
      const partitions = topicReader.array((partitionReader) => {
        const partition = partitionReader.int32();
        if (version >= 9) partitionReader.int32();
        const fetchOffset = partitionReader.int64();
        if (version >= 12) partitionReader.int32();
        if (version >= 5) partitionReader.int64();
        const entry = { partition, fetchOffset, maxBytes: partitionReader.int32() };
        partitionReader.tags();
        return entry;
      });
      topicReader.tags();
      return { name, topicId, partitions };
    });
    if (version >= 7) {
      reader.array((forgotten) => {
        if (byId) forgotten.uuid();
        else forgotten.string();
        forgotten.array((p) => p.int32());
        forgotten.tags();
      });
    }
    if (version >= 11) reader.string();
    reader.tags();

    const deadline = Date.now() + maxWaitMs;
    let result = collect(cluster, principal, topics, maxBytes, readCommitted);
    const watched = topics.flatMap((topic) =>
      topic.partitions.map((entry) => ({ topic: topic.name, partition: entry.partition })),
    );
    while (result.total < Math.max(1, minBytes) && Date.now() < deadline && watched.length > 0) {
      await cluster.waitForAppend(watched, deadline - Date.now());
      result = collect(cluster, principal, topics, maxBytes, readCommitted);
    }

    const writer = new Writer(context.flexible).int32(0);
    if (version >= 7) writer.int16(ErrorCode.NONE).int32(0);
    writer.array(result.answers, (w, topic) => {
      if (byId) w.uuid(topic.topicId);
      else w.string(topic.name);
      w.array(topic.partitions, (pw, data) => {
        pw.int32(data.partition).int16(data.errorCode).int64(data.highWatermark).int64(data.lastStableOffset);
        if (version >= 5) pw.int64(data.logStartOffset);
        pw.nullableArray(data.abortedTransactions, (aw, aborted) =>
          aw.int64(aborted.producerId).int64(aborted.firstOffset).tags(),
        );
        if (version >= 11) pw.int32(-1);
        // RECORDS: an int32 length, or in a flexible version an unsigned varint of length + 1.
        if (context.flexible) pw.uvarint(data.bytes + 1);
        else pw.int32(data.bytes);
        for (const batch of data.batches) pw.raw(batch);
        pw.tags();
      });
      w.tags();
    });
    return writer.tags();
  },
};
