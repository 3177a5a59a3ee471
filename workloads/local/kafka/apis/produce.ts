import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import type { AppendResult } from '../log-store.js';
import { Writer } from '../protocol/codec.js';
import { CorruptBatchError, splitBatches } from '../records.js';
import { batchSizeProblem } from '../topic-rules.js';
import type { ApiModule } from './api.js';

interface PartitionAnswer {
  partition: number;
  errorCode: number;
  baseOffset: number;
  logStartOffset: number;
}

/**
 * Produce (RecordBatch v2 only, hence v3+): each batch's CRC-32C is checked, offsets assigned in
 * the store's transaction; with acks 1 or -1 the answer waits for that transaction's commit (one
 * copy, so both mean durable), with acks 0 there is none. An idempotent producer's batch is
 * checked against its sequence on the partition (a retry is answered with its first offset); a
 * transactional one needs WRITE on its transactional id, the current epoch and the partition
 * added to its open transaction.
 */
export const produce: ApiModule = {
  key: 0,
  name: 'Produce',
  minVersion: 3,
  maxVersion: 11,
  flexibleVersion: 9,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const transactionalId = reader.nullableString();
    const acks = reader.int16();
    reader.int32();
    const appendTime = cluster.clock.now().getTime();
    const transactionalWritable =
      transactionalId !== null && isAllowed(principal, 'transactional_id', transactionalId, 'write');
    const topics = reader.array((topicReader) => {
      const name = topicReader.string();
      const writable = isAllowed(principal, 'topic', name, 'write');
      const topic = writable ? cluster.store.topic(name) : undefined;
      const partitions = topicReader.array((partitionReader) => {
        const partition = partitionReader.int32();
        const records = partitionReader.nullableBytes();
        partitionReader.tags();
        const failed = (errorCode: number): Promise<PartitionAnswer> =>
          Promise.resolve({ partition, errorCode, baseOffset: -1, logStartOffset: -1 });
        if (!writable) return failed(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        if (transactionalId !== null && !transactionalWritable)
          return failed(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        if (acks !== 0 && acks !== 1 && acks !== -1) return failed(ErrorCode.INVALID_REQUIRED_ACKS);
        if (!topic || partition < 0 || partition >= topic.partitions)
          return failed(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        let batches;
        try {
          batches = splitBatches(records ?? Buffer.alloc(0));
        } catch (error) {
          if (error instanceof CorruptBatchError) {
            context.log.warn(
              { topic: name, partition, reason: error.message },
              'corrupt record batch refused',
            );
            return failed(ErrorCode.CORRUPT_MESSAGE);
          }
          throw error;
        }
        if (batches.length === 0) return failed(ErrorCode.CORRUPT_MESSAGE);
        const tooLarge = batches.map((batch) => batchSizeProblem(batch.bytes.length)).find(Boolean);
        if (tooLarge) return failed(tooLarge.errorCode);
        if (batches.some((batch) => batch.control)) return failed(ErrorCode.INVALID_RECORD);
        for (const batch of batches.filter((each) => each.transactional)) {
          if (transactionalId === null) return failed(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
          const problem = cluster.transactions.writeProblem(
            transactionalId,
            batch.producerId,
            batch.producerEpoch,
            { topic: name, partition },
          );
          if (problem !== ErrorCode.NONE) return failed(problem);
        }
        return cluster.store.append(name, partition, batches, appendTime).then(
          (result: AppendResult) => {
            if (result.errorCode === ErrorCode.NONE) cluster.appended(name, partition);
            return { partition, ...result };
          },
          (error: unknown) => {
            context.log.error({ err: error, topic: name, partition }, 'append failed');
            return {
              partition,
              errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
              baseOffset: -1,
              logStartOffset: -1,
            };
          },
        );
      });
      topicReader.tags();
      return { name, partitions };
    });
    reader.tags();
    if (acks === 0) return undefined;
    return Promise.all(
      topics.map(async (topic) => ({ name: topic.name, partitions: await Promise.all(topic.partitions) })),
    ).then((answers) => {
      const writer = new Writer(context.flexible);
      writer.array(answers, (w, topic) => {
        w.string(topic.name).array(topic.partitions, (pw, answer) => {
          pw.int32(answer.partition).int16(answer.errorCode).int64(answer.baseOffset).int64(-1);
          if (version >= 5) pw.int64(answer.logStartOffset);
          if (version >= 8) pw.array([], () => undefined).nullableString(null);
          pw.tags();
        });
        w.tags();
      });
      return writer.int32(0).tags();
    });
  },
};
