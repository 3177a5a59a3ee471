import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** CreatePartitions: grows a topic (needs ALTER), within the tier's partition limit. */
export const createPartitions: ApiModule = {
  key: 37,
  name: 'CreatePartitions',
  minVersion: 0,
  maxVersion: 3,
  flexibleVersion: 2,
  handle(context, reader) {
    const { cluster, principal } = context;
    const requests = reader.array((r) => {
      const request = {
        name: r.string(),
        count: r.int32(),
        assignments: r.nullableArray((a) => {
          const brokers = a.array((b) => b.int32());
          a.tags();
          return brokers;
        }),
      };
      r.tags();
      return request;
    });
    reader.int32();
    const validateOnly = reader.bool();
    reader.tags();
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
    return new Writer(context.flexible)
      .int32(0)
      .array(results, (w, result) =>
        w.string(result.name).int16(result.errorCode).nullableString(result.message).tags(),
      )
      .tags();
  },
};
