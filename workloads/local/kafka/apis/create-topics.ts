import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer, ZERO_UUID } from '../protocol/codec.js';
import { DURABLE } from '../flush-policy.js';
import { describeTopicConfigs, type TopicConfigEntry } from '../topic-configs.js';
import type { Refusal } from '../topic-rules.js';
import type { ApiModule } from './api.js';

interface CreatedAnswer {
  name: string;
  errorCode: number;
  message: string | null;
  topicId: string;
  partitions: number;
  replicas: number;
  configs: TopicConfigEntry[] | null;
}

/**
 * CreateTopics: needs CREATE on the topic; Kafka's name rules and the tier's limits apply. From
 * v5 the answer carries the partition count, replication factor and configs the topic got (also
 * for validateOnly), from v7 its topic id.
 */
export const createTopics: ApiModule = {
  key: 19,
  name: 'CreateTopics',
  minVersion: 0,
  maxVersion: 7,
  flexibleVersion: 5,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const requests = reader.array((r) => {
      const name = r.string();
      const partitions = r.int32();
      const replicas = r.int16();
      const assignments = r.array((a) => {
        const assignment = { partition: a.int32(), brokers: a.array((b) => b.int32()) };
        a.tags();
        return assignment;
      });
      const configs = new Map(
        r.array((c) => {
          const entry = [c.string(), c.nullableString()] as const;
          c.tags();
          return entry;
        }),
      );
      r.tags();
      return { name, partitions, replicas, assignments, configs };
    });
    reader.int32();
    const validateOnly = version >= 1 ? reader.bool() : false;
    reader.tags();
    const results = requests.map((request): CreatedAnswer => {
      const refused = (errorCode: number, message: string): CreatedAnswer => ({
        name: request.name,
        errorCode,
        message,
        topicId: ZERO_UUID,
        partitions: -1,
        replicas: -1,
        configs: null,
      });
      if (!isAllowed(principal, 'topic', request.name, 'create'))
        return refused(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.');
      if (request.assignments.length > 0)
        return refused(ErrorCode.INVALID_REQUEST, 'Manual replica assignment is not supported.');
      const notCreated = (refusal: Refusal) => {
        context.log.info(
          { topic: request.name.slice(0, 300), errorCode: refusal.errorCode },
          'topic refused',
        );
        return refused(refusal.errorCode, refusal.message);
      };
      const spec = cluster.topicSpecFrom(request.name, request.partitions, request.replicas, request.configs);
      if ('errorCode' in spec) return notCreated(spec);
      const refusal = cluster.createTopic(spec, validateOnly);
      if (refusal) return notCreated(refusal);
      const created = validateOnly ? undefined : cluster.store.topic(spec.name);
      const described = created ?? { ...DURABLE, ...spec, createdAt: '', topicId: ZERO_UUID };
      return {
        name: request.name,
        errorCode: ErrorCode.NONE,
        message: null,
        topicId: described.topicId,
        partitions: described.partitions,
        replicas: described.replicas,
        configs: describeTopicConfigs(described, cluster.limits, null),
      };
    });
    const writer = new Writer(context.flexible);
    if (version >= 2) writer.int32(0);
    writer.array(results, (w, result) => {
      w.string(result.name);
      if (version >= 7) w.uuid(result.topicId);
      w.int16(result.errorCode);
      if (version >= 1) w.nullableString(result.message);
      if (version >= 5) {
        w.int32(result.partitions).int16(result.replicas);
        w.nullableArray(result.configs, (cw, entry) =>
          cw
            .string(entry.name)
            .nullableString(entry.value)
            .bool(entry.readOnly)
            .int8(entry.source)
            .bool(false)
            .tags(),
        );
      }
      w.tags();
    });
    return writer.tags();
  },
};
