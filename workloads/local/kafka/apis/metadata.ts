import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import type { StoredTopic } from '../log-store.js';
import { Writer } from '../protocol/codec.js';
import { topicNameProblem } from '../topic-rules.js';
import type { ApiModule } from './api.js';

/** Kafka's "authorized operations not asked for". */
const OPERATIONS_OMITTED = -2147483648;

interface TopicAnswer {
  errorCode: number;
  name: string;
  topic: StoredTopic | undefined;
}

/**
 * Metadata: every broker id at the host and port clients reach it, and the topics the user may
 * DESCRIBE. Topics are never created on the fly: an unknown one is UNKNOWN_TOPIC_OR_PARTITION.
 */
export const metadata: ApiModule = {
  key: 3,
  name: 'Metadata',
  minVersion: 0,
  maxVersion: 8,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const requested =
      version === 0 ? reader.array((r) => r.string()) : reader.nullableArray((r) => r.string());
    if (version >= 4) reader.bool();
    const all = requested === null || (version === 0 && requested.length === 0);
    const answers: TopicAnswer[] = all
      ? cluster.store
          .topics()
          .filter((topic) => isAllowed(principal, 'topic', topic.name, 'describe'))
          .map((topic) => ({ errorCode: ErrorCode.NONE, name: topic.name, topic }))
      : requested.map((name) => {
          if (topicNameProblem(name))
            return { errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, name, topic: undefined };
          if (!isAllowed(principal, 'topic', name, 'describe')) {
            return { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name, topic: undefined };
          }
          const topic = cluster.store.topic(name);
          return { errorCode: topic ? ErrorCode.NONE : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name, topic };
        });
    const writer = new Writer();
    if (version >= 3) writer.int32(0);
    writer.array(cluster.brokers, (w, broker) => {
      w.int32(broker.nodeId).string(broker.host).int32(broker.port);
      if (version >= 1) w.nullableString(null);
    });
    if (version >= 2) writer.nullableString(cluster.clusterId);
    if (version >= 1) writer.int32(cluster.brokers[0]!.nodeId);
    writer.array(answers, (w, answer) => {
      w.int16(answer.errorCode).string(answer.name);
      if (version >= 1) w.bool(false);
      const topic = answer.topic;
      const partitions = topic ? Array.from({ length: topic.partitions }, (_, i) => i) : [];
      w.array(partitions, (pw, partition) => {
        const replicas = cluster.replicasOf(topic!, partition);
        pw.int16(ErrorCode.NONE).int32(partition).int32(cluster.leaderOf(topic!.name, partition).nodeId);
        if (version >= 7) pw.int32(0);
        pw.array(replicas, (rw, id) => rw.int32(id));
        pw.array(replicas, (rw, id) => rw.int32(id));
        if (version >= 5) pw.array([], () => undefined);
      });
      if (version >= 8) w.int32(OPERATIONS_OMITTED);
    });
    if (version >= 8) writer.int32(OPERATIONS_OMITTED);
    return writer;
  },
};
