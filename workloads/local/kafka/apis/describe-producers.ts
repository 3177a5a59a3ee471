import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** A producer's state on one partition, as DescribeProducers shows it. */
export interface ActiveProducer {
  producerId: number;
  producerEpoch: number;
  lastSequence: number;
  lastTimestamp: number;
  coordinatorEpoch: number;
  /** -1 outside a transaction. */
  currentTxnStartOffset: number;
}

/**
 * The producers with state on a partition. Only idempotent and transactional producers keep
 * state; until the broker keeps any, no partition has an active producer.
 */
export type ProducersOf = (topic: string, partition: number) => ActiveProducer[];

const NO_PRODUCER_STATE: ProducersOf = () => [];

/**
 * DescribeProducers: the active producers of each partition asked for (READ on the topic), as
 * `kafka-transactions.sh describe-producers` lists them.
 */
export function describeProducers(producersOf: ProducersOf = NO_PRODUCER_STATE): ApiModule {
  return {
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
          const producers = errorCode === ErrorCode.NONE ? producersOf(topic.name, partition) : [];
          pw.int32(partition).int16(errorCode).nullableString(null);
          pw.array(producers, (aw, producer) =>
            aw
              .int64(producer.producerId)
              .int32(producer.producerEpoch)
              .int32(producer.lastSequence)
              .int64(producer.lastTimestamp)
              .int32(producer.coordinatorEpoch)
              .int64(producer.currentTxnStartOffset)
              .tags(),
          );
          pw.tags();
        });
        w.tags();
      });
      return writer.tags();
    },
  };
}
