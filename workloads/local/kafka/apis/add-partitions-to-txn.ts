import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import { fencedAnswer, type TopicPartition } from '../transactions.js';
import type { ApiModule } from './api.js';

/**
 * AddPartitionsToTxn (the client versions): adds partitions to the producer's open transaction.
 * Kafka's checks: WRITE on the transactional id and on each topic, each partition known; when one
 * fails, the others are answered OPERATION_NOT_ATTEMPTED and none is added.
 */
export const addPartitionsToTxn: ApiModule = {
  key: 24,
  name: 'AddPartitionsToTxn',
  minVersion: 0,
  maxVersion: 2,
  handle(context, reader) {
    const { cluster, principal, version } = context;
    const transactionalId = reader.string();
    const producerId = reader.int64();
    const producerEpoch = reader.int16();
    const topics = reader.array((topicReader) => ({
      name: topicReader.string(),
      partitions: topicReader.array((partitionReader) => partitionReader.int32()),
    }));
    const problems = new Map<string, number>();
    const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;
    let errorCode: number = ErrorCode.NONE;
    if (!isAllowed(principal, 'transactional_id', transactionalId, 'write')) {
      errorCode = ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    } else {
      for (const topic of topics) {
        const stored = cluster.store.topic(topic.name);
        const writable = isAllowed(principal, 'topic', topic.name, 'write');
        for (const partition of topic.partitions) {
          if (!writable) problems.set(key(topic.name, partition), ErrorCode.TOPIC_AUTHORIZATION_FAILED);
          else if (!stored || partition < 0 || partition >= stored.partitions)
            problems.set(key(topic.name, partition), ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        }
      }
      if (problems.size === 0) {
        const partitions: TopicPartition[] = topics.flatMap((topic) =>
          topic.partitions.map((partition) => ({ topic: topic.name, partition })),
        );
        errorCode = fencedAnswer(
          cluster.transactions.addPartitions(transactionalId, producerId, producerEpoch, partitions),
          version,
          2,
        );
      }
    }
    const writer = new Writer().int32(0);
    return writer.array(topics, (w, topic) => {
      w.string(topic.name).array(topic.partitions, (pw, partition) => {
        const own = problems.get(key(topic.name, partition));
        pw.int32(partition).int16(problems.size > 0 ? (own ?? ErrorCode.OPERATION_NOT_ATTEMPTED) : errorCode);
      });
    });
  },
};
