import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import type { StoredTopic } from '../log-store.js';
import { Writer, ZERO_UUID } from '../protocol/codec.js';
import { topicNameProblem } from '../topic-rules.js';
import type { ApiModule } from './api.js';
import { authorizedOperations, OPERATIONS_OMITTED } from './authorized-operations.js';

interface TopicAnswer {
  errorCode: number;
  name: string | null;
  topicId: string;
  topic: StoredTopic | undefined;
}

/** The one leader epoch of every partition: leadership never moves between the listeners. */
export const LEADER_EPOCH = 0;

/**
 * Metadata: every broker id at the host and port clients reach it, and the topics the user may
 * DESCRIBE, asked for by name or (v10+) by topic id. Topics are never created on the fly: an
 * unknown one is UNKNOWN_TOPIC_OR_PARTITION (UNKNOWN_TOPIC_ID by id).
 */
export const metadata: ApiModule = {
  key: 3,
  name: 'Metadata',
  minVersion: 0,
  maxVersion: 12,
  flexibleVersion: 9,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const readTopic = () => {
      const topicId = version >= 10 ? reader.uuid() : ZERO_UUID;
      const name = version >= 10 ? reader.nullableString() : reader.string();
      reader.tags();
      return { topicId, name };
    };
    const requested = version === 0 ? reader.array(readTopic) : reader.nullableArray(readTopic);
    if (version >= 4) reader.bool();
    const clusterOperationsAsked = version >= 8 && version <= 10 ? reader.bool() : false;
    const topicOperationsAsked = version >= 8 ? reader.bool() : false;
    reader.tags();
    const found = (errorCode: number, topic: StoredTopic): TopicAnswer => ({
      errorCode,
      name: topic.name,
      topicId: topic.topicId,
      topic: errorCode === ErrorCode.NONE ? topic : undefined,
    });
    const all = requested === null || (version === 0 && requested.length === 0);
    const answers: TopicAnswer[] = all
      ? cluster.store
          .topics()
          .filter((topic) => isAllowed(principal, 'topic', topic.name, 'describe'))
          .map((topic) => found(ErrorCode.NONE, topic))
      : requested.map(({ topicId, name }): TopicAnswer => {
          if (name === null) {
            const byId = cluster.store.topics().find((topic) => topic.topicId === topicId);
            if (!byId || !isAllowed(principal, 'topic', byId.name, 'describe'))
              return { errorCode: ErrorCode.UNKNOWN_TOPIC_ID, name: null, topicId, topic: undefined };
            return found(ErrorCode.NONE, byId);
          }
          const refused = (errorCode: number) => ({ errorCode, name, topicId: ZERO_UUID, topic: undefined });
          if (topicNameProblem(name)) return refused(ErrorCode.INVALID_TOPIC_EXCEPTION);
          if (!isAllowed(principal, 'topic', name, 'describe'))
            return refused(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
          const topic = cluster.store.topic(name);
          return topic ? found(ErrorCode.NONE, topic) : refused(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        });
    const writer = new Writer(context.flexible);
    if (version >= 3) writer.int32(0);
    writer.array(cluster.brokers, (w, broker) => {
      w.int32(broker.nodeId).string(broker.host).int32(broker.port);
      if (version >= 1) w.nullableString(null);
      w.tags();
    });
    if (version >= 2) writer.nullableString(cluster.clusterId);
    if (version >= 1) writer.int32(cluster.brokers[0]!.nodeId);
    writer.array(answers, (w, answer) => {
      w.int16(answer.errorCode);
      if (version >= 12) w.nullableString(answer.name);
      else w.string(answer.name ?? '');
      if (version >= 10) w.uuid(answer.topicId);
      if (version >= 1) w.bool(false);
      const topic = answer.topic;
      const partitions = topic ? Array.from({ length: topic.partitions }, (_, i) => i) : [];
      w.array(partitions, (pw, partition) => {
        const replicas = cluster.replicasOf(topic!, partition);
        pw.int16(ErrorCode.NONE).int32(partition).int32(cluster.leaderOf(topic!.name, partition).nodeId);
        if (version >= 7) pw.int32(LEADER_EPOCH);
        pw.array(replicas, (rw, id) => rw.int32(id));
        pw.array(replicas, (rw, id) => rw.int32(id));
        if (version >= 5) pw.array([], () => undefined);
        pw.tags();
      });
      if (version >= 8)
        w.int32(
          answer.name === null
            ? OPERATIONS_OMITTED
            : authorizedOperations(principal, 'topic', answer.name, topicOperationsAsked),
        );
      w.tags();
    });
    // Cluster operations are outside the platform's ACLs: a client that asks is told none.
    if (version >= 8 && version <= 10) writer.int32(clusterOperationsAsked ? 0 : OPERATIONS_OMITTED);
    return writer.tags();
  },
};
