import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/**
 * DescribeProducers: the active producers of each partition asked for (READ on the topic), as
 * `kafka-transactions.sh describe-producers` lists them.
 */
export const describeProducers: ApiModule = {
  key: 61,
  name: 'DescribeProducers',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersion: 0,
  handle(context, reader) {
    const { cluster, principal } = context;
    const topics = reader.array((r) => {
      const topic = { name: r.string(), partitions: r.array((p) => p.int32()) };
      r.tags();
      return topic;
    });
    reader.tags();
    const writer = new Writer(context.flexible).int32(0);
    writer.array(topics, (w, topic) => {
      const allowed = isAllowed(principal, 'topic', topic.name, 'read');
      w.string(topic.name).array(topic.partitions, (pw, partition) => {
        let errorCode: number = ErrorCode.NONE;
        if (!allowed) errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        else if (!cluster.store.partition(topic.name, partition))
          errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        const producers = errorCode === ErrorCode.NONE ? cluster.store.producers(topic.name, partition) : [];
        pw.int32(partition).int16(errorCode).nullableString(null);
        pw.array(producers, (aw, producer) =>
          aw
            .int64(producer.producerId)
            .int32(producer.producerEpoch)
            .int32(producer.batches.at(-1)?.lastSequence ?? -1)
            .int64(producer.lastTimestamp)
            .int32(-1)
            .int64(producer.txnFirstOffset ?? -1)
            .tags(),
        );
        pw.tags();
      });
      w.tags();
    });
    return writer.tags();
  },
};
