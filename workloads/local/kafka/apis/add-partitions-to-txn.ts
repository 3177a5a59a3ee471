import { isAllowed, type Principal } from '../acl.js';
import type { KafkaCluster } from '../cluster.js';
import { ErrorCode } from '../errors.js';
import { Writer, type Reader } from '../protocol/codec.js';
import { fencedAnswer, type TopicPartition } from '../transactions.js';
import type { ApiModule } from './api.js';

interface TopicPartitions {
  name: string;
  partitions: number[];
}

interface TopicResult {
  name: string;
  results: { partition: number; errorCode: number }[];
}

function readTopics(reader: Reader): TopicPartitions[] {
  return reader.array((topicReader) => {
    const topic = { name: topicReader.string(), partitions: topicReader.array((p) => p.int32()) };
    topicReader.tags();
    return topic;
  });
}

/**
 * One transaction's partitions: Kafka's checks (WRITE on the transactional id and on each topic,
 * each partition known; when one fails the others are OPERATION_NOT_ATTEMPTED and none is added),
 * then the coordinator's. `verifyOnly` (a broker asking, v4+) only says whether each partition is
 * in the open transaction.
 */
function addToTransaction(
  cluster: KafkaCluster,
  principal: Principal,
  request: { transactionalId: string; producerId: number; producerEpoch: number; verifyOnly: boolean },
  topics: TopicPartitions[],
  version: number,
): TopicResult[] {
  const problems = new Map<string, number>();
  const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;
  let errorCode: number = ErrorCode.NONE;
  if (!isAllowed(principal, 'transactional_id', request.transactionalId, 'write')) {
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
    if (problems.size === 0 && !request.verifyOnly) {
      const partitions: TopicPartition[] = topics.flatMap((topic) =>
        topic.partitions.map((partition) => ({ topic: topic.name, partition })),
      );
      errorCode = fencedAnswer(
        cluster.transactions.addPartitions(
          request.transactionalId,
          request.producerId,
          request.producerEpoch,
          partitions,
        ),
        version,
        2,
      );
    }
  }
  return topics.map((topic) => ({
    name: topic.name,
    results: topic.partitions.map((partition) => {
      const own = problems.get(key(topic.name, partition));
      if (problems.size > 0) return { partition, errorCode: own ?? ErrorCode.OPERATION_NOT_ATTEMPTED };
      if (!request.verifyOnly || errorCode !== ErrorCode.NONE) return { partition, errorCode };
      return {
        partition,
        errorCode: cluster.transactions.writeProblem(
          request.transactionalId,
          request.producerId,
          request.producerEpoch,
          {
            topic: topic.name,
            partition,
          },
        ),
      };
    }),
  }));
}

function writeTopicResults(writer: Writer, results: TopicResult[]): void {
  writer.array(results, (w, topic) => {
    w.string(topic.name).array(topic.results, (pw, result) =>
      pw.int32(result.partition).int16(result.errorCode).tags(),
    );
    w.tags();
  });
}

/**
 * AddPartitionsToTxn: adds partitions to the producer's open transaction. v0-3 are the clients'
 * (one transaction); v4+ are the brokers' (several, CLUSTER_ACTION, possibly only verifying).
 */
export const addPartitionsToTxn: ApiModule = {
  key: 24,
  name: 'AddPartitionsToTxn',
  minVersion: 0,
  maxVersion: 5,
  flexibleVersion: 3,
  handle(context, reader) {
    const { cluster, principal, version } = context;
    const writer = new Writer(context.flexible).int32(0);
    if (version <= 3) {
      const request = {
        transactionalId: reader.string(),
        producerId: reader.int64(),
        producerEpoch: reader.int16(),
        verifyOnly: false,
      };
      const topics = readTopics(reader);
      reader.tags();
      writeTopicResults(writer, addToTransaction(cluster, principal, request, topics, version));
      return writer.tags();
    }
    const transactions = reader.array((transactionReader) => {
      const transaction = {
        transactionalId: transactionReader.string(),
        producerId: transactionReader.int64(),
        producerEpoch: transactionReader.int16(),
        verifyOnly: transactionReader.bool(),
        topics: readTopics(transactionReader),
      };
      transactionReader.tags();
      return transaction;
    });
    reader.tags();
    // Kafka takes the batched versions only from brokers, which hold CLUSTER_ACTION.
    const allowed = principal.superuser;
    writer.int16(allowed ? ErrorCode.NONE : ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    writer.array(allowed ? transactions : [], (w, transaction) => {
      w.string(transaction.transactionalId);
      writeTopicResults(w, addToTransaction(cluster, principal, transaction, transaction.topics, version));
      w.tags();
    });
    return writer.tags();
  },
};
