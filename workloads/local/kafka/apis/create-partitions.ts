import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** CreatePartitions: grows a topic (needs ALTER), within the tier's partition limit. */
export const createPartitions: ApiModule = {
  key: 37,
  name: 'CreatePartitions',
  minVersion: 0,
  maxVersion: 1,
  handle(context, reader) {
    const { cluster, principal } = context;
    const requests = reader.array((r) => ({
      name: r.string(),
      count: r.int32(),
      assignments: r.nullableArray((a) => a.array((b) => b.int32())),
    }));
    reader.int32();
    const validateOnly = reader.bool();
    const results = requests.map((request) => {
      if (!isAllowed(principal, 'topic', request.name, 'alter')) {
        return {
          name: request.name,
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
          message: 'Authorization failed.',
        };
      }
      const refusal = cluster.createPartitions(request.name, request.count, validateOnly);
      return {
        name: request.name,
        errorCode: refusal?.errorCode ?? ErrorCode.NONE,
        message: refusal?.message ?? null,
      };
    });
    return new Writer()
      .int32(0)
      .array(results, (w, result) =>
        w.string(result.name).int16(result.errorCode).nullableString(result.message),
      );
  },
};
