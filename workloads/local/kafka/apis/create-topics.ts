import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** CreateTopics: needs CREATE on the topic; Kafka's name rules and the tier's limits apply. */
export const createTopics: ApiModule = {
  key: 19,
  name: 'CreateTopics',
  minVersion: 0,
  maxVersion: 4,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const requests = reader.array((r) => ({
      name: r.string(),
      partitions: r.int32(),
      replicas: r.int16(),
      assignments: r.array((a) => ({ partition: a.int32(), brokers: a.array((b) => b.int32()) })),
      configs: new Map(r.array((c) => [c.string(), c.nullableString()] as const)),
    }));
    reader.int32();
    const validateOnly = version >= 1 ? reader.bool() : false;
    const results = requests.map((request) => {
      if (!isAllowed(principal, 'topic', request.name, 'create')) {
        return {
          name: request.name,
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
          message: 'Authorization failed.',
        };
      }
      if (request.assignments.length > 0) {
        return {
          name: request.name,
          errorCode: ErrorCode.INVALID_REQUEST,
          message: 'Manual replica assignment is not supported.',
        };
      }
      const spec = cluster.topicSpecFrom(request.name, request.partitions, request.replicas, request.configs);
      const refusal = 'errorCode' in spec ? spec : cluster.createTopic(spec, validateOnly);
      if (refusal)
        context.log.info(
          { topic: request.name.slice(0, 300), errorCode: refusal.errorCode },
          'topic refused',
        );
      return {
        name: request.name,
        errorCode: refusal?.errorCode ?? ErrorCode.NONE,
        message: refusal?.message ?? null,
      };
    });
    const writer = new Writer();
    if (version >= 2) writer.int32(0);
    return writer.array(results, (w, result) => {
      w.string(result.name).int16(result.errorCode);
      if (version >= 1) w.nullableString(result.message);
    });
  },
};
