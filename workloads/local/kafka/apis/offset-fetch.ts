import { isAllowed, type Principal } from '../acl.js';
import type { KafkaCluster } from '../cluster.js';
import { ErrorCode } from '../errors.js';
import { Writer, type Reader } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

interface RequestedTopic {
  name: string;
  partitions: number[];
}

interface PartitionOffset {
  partition: number;
  offset: number;
  metadata: string | null;
  errorCode: number;
}

interface GroupOffsets {
  groupId: string;
  errorCode: number;
  topics: { name: string; partitions: PartitionOffset[] }[];
}

/**
 * One group's committed offsets for `requested` (every committed one when null). With
 * `requireStable` (v7+, KIP-447), a partition whose offset an open transaction is about to commit
 * answers UNSTABLE_OFFSET_COMMIT instead, which clients retry until the transaction ends.
 */
function groupOffsets(
  cluster: KafkaCluster,
  principal: Principal,
  groupId: string,
  requested: RequestedTopic[] | null,
  requireStable: boolean,
): GroupOffsets {
  const groupAllowed = isAllowed(principal, 'group', groupId, 'describe');
  const committed = groupAllowed ? cluster.store.committedOffsets(groupId) : [];
  const byKey = new Map(committed.map((entry) => [`${entry.topic}\u0000${entry.partition}`, entry]));
  const topics =
    requested ??
    [...new Set(committed.map((entry) => entry.topic))]
      .filter((name) => isAllowed(principal, 'topic', name, 'describe'))
      .map((name) => ({
        name,
        partitions: committed.filter((entry) => entry.topic === name).map((entry) => entry.partition),
      }));
  return {
    groupId,
    errorCode: groupAllowed ? ErrorCode.NONE : ErrorCode.GROUP_AUTHORIZATION_FAILED,
    topics: topics.map((topic) => {
      const topicAllowed = isAllowed(principal, 'topic', topic.name, 'describe');
      return {
        name: topic.name,
        partitions: topic.partitions.map((partition) => {
          const entry = byKey.get(`${topic.name}\u0000${partition}`);
          let errorCode: number = ErrorCode.NONE;
          if (!groupAllowed) errorCode = ErrorCode.GROUP_AUTHORIZATION_FAILED;
          else if (!topicAllowed) errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
          else if (requireStable && cluster.transactions.hasPendingOffset(groupId, topic.name, partition))
            errorCode = ErrorCode.UNSTABLE_OFFSET_COMMIT;
          return {
            partition,
            offset: errorCode === ErrorCode.NONE && entry ? entry.offset : -1,
            metadata: entry?.metadata ?? '',
            errorCode,
          };
        }),
      };
    }),
  };
}

function readTopics(reader: Reader): RequestedTopic[] | null {
  return reader.nullableArray((r) => {
    const topic = { name: r.string(), partitions: r.array((p) => p.int32()) };
    r.tags();
    return topic;
  });
}

function writeTopics(writer: Writer, version: number, topics: GroupOffsets['topics']): void {
  writer.array(topics, (w, topic) => {
    w.string(topic.name).array(topic.partitions, (pw, entry) => {
      pw.int32(entry.partition).int64(entry.offset);
      if (version >= 5) pw.int32(-1);
      pw.nullableString(entry.metadata).int16(entry.errorCode).tags();
    });
    w.tags();
  });
}

/**
 * OffsetFetch: a group's committed offsets (-1 where none), all of them when topics is null
 * (v2+); from v7 only stable ones when asked; from v8 several groups in one request.
 */
export const offsetFetch: ApiModule = {
  key: 9,
  name: 'OffsetFetch',
  minVersion: 0,
  maxVersion: 9,
  flexibleVersion: 6,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const writer = new Writer(context.flexible);
    if (version >= 3) writer.int32(0);
    if (version < 8) {
      const groupId = reader.string();
      const requested = readTopics(reader);
      const requireStable = version >= 7 && reader.bool();
      reader.tags();
      const answer = groupOffsets(cluster, principal, groupId, requested, requireStable);
      writeTopics(writer, version, answer.topics);
      if (version >= 2) writer.int16(answer.errorCode);
      return writer.tags();
    }
    const requests = reader.array((r) => {
      const groupId = r.string();
      if (version >= 9) {
        r.nullableString();
        r.int32();
      }
      const requested = readTopics(r);
      r.tags();
      return { groupId, requested };
    });
    const requireStable = reader.bool();
    reader.tags();
    const groups = requests.map(({ groupId, requested }) =>
      groupOffsets(cluster, principal, groupId, requested, requireStable),
    );
    writer.array(groups, (w, group) => {
      w.string(group.groupId);
      writeTopics(w, version, group.topics);
      w.int16(group.errorCode).tags();
    });
    return writer.tags();
  },
};
