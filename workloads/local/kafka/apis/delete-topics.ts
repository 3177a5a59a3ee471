import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** DeleteTopics: needs DELETE on the topic; its records and committed offsets go with it. */
export const deleteTopics: ApiModule = {
  key: 20,
  name: 'DeleteTopics',
  minVersion: 0,
  maxVersion: 3,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const names = reader.array((r) => r.string());
    reader.int32();
    const results = names.map((name) => ({
      name,
      errorCode: isAllowed(principal, 'topic', name, 'delete')
        ? cluster.deleteTopic(name)
        : ErrorCode.TOPIC_AUTHORIZATION_FAILED,
    }));
    const writer = new Writer();
    if (version >= 1) writer.int32(0);
    return writer.array(results, (w, result) => w.string(result.name).int16(result.errorCode));
  },
};
