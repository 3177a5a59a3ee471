import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import type { TransactionRecord } from '../log-store.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** The partitions of a transaction grouped by topic, as DescribeTransactions answers them. */
function byTopic(record: TransactionRecord): { topic: string; partitions: number[] }[] {
  const topics = new Map<string, number[]>();
  for (const entry of record.partitions)
    topics.set(entry.topic, [...(topics.get(entry.topic) ?? []), entry.partition]);
  return [...topics].map(([topic, partitions]) => ({ topic, partitions }));
}

/**
 * DescribeTransactions: each transactional id's state, as `kafka-transactions.sh describe` shows
 * it, from the broker coordinating it (NOT_COORDINATOR elsewhere); DESCRIBE on the id.
 */
export const describeTransactions: ApiModule = {
  key: 65,
  name: 'DescribeTransactions',
  minVersion: 0,
  maxVersion: 0,
  flexibleVersion: 0,
  handle(context, reader) {
    const { cluster, principal } = context;
    const ids = reader.array((r) => r.string());
    reader.tags();
    const writer = new Writer(context.flexible).int32(0);
    writer.array(ids, (w, transactionalId) => {
      const record = cluster.transactions.describe(transactionalId);
      let errorCode: number = ErrorCode.NONE;
      if (!isAllowed(principal, 'transactional_id', transactionalId, 'describe'))
        errorCode = ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
      else if (cluster.coordinatorOf(transactionalId).nodeId !== context.brokerId)
        errorCode = ErrorCode.NOT_COORDINATOR;
      else if (!record) errorCode = ErrorCode.TRANSACTIONAL_ID_NOT_FOUND;
      const shown = errorCode === ErrorCode.NONE ? record : undefined;
      w.int16(errorCode)
        .string(transactionalId)
        .string(shown?.state ?? '')
        .int32(shown?.timeoutMs ?? 0)
        .int64(shown?.startedAt ?? -1)
        .int64(shown?.producerId ?? -1)
        .int16(shown?.producerEpoch ?? -1)
        .array(shown ? byTopic(shown) : [], (tw, topic) =>
          tw
            .string(topic.topic)
            .array(topic.partitions, (pw, partition) => pw.int32(partition))
            .tags(),
        )
        .tags();
    });
    return writer.tags();
  },
};
