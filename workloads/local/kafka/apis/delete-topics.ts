import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer, ZERO_UUID } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/**
 * DeleteTopics: needs DELETE on the topic; its records and committed offsets go with it. From v6
 * a topic is named or given by its topic id.
 */
export const deleteTopics: ApiModule = {
  key: 20,
  name: 'DeleteTopics',
  minVersion: 0,
  maxVersion: 6,
  flexibleVersion: 4,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const requested =
      version >= 6
        ? reader.array((r) => {
            const topic = { name: r.nullableString(), topicId: r.uuid() };
            r.tags();
            return topic;
          })
        : reader.array((r) => ({ name: r.string() as string | null, topicId: ZERO_UUID }));
    reader.int32();
    reader.tags();
    const results = requested.map(({ name, topicId }) => {
      const topic =
        name === null
          ? cluster.store.topics().find((candidate) => candidate.topicId === topicId)
          : cluster.store.topic(name);
      if (name === null && !topic)
        return { name, topicId, errorCode: ErrorCode.UNKNOWN_TOPIC_ID, message: 'Topic id not found.' };
      const topicName = topic?.name ?? name!;
      if (!isAllowed(principal, 'topic', topicName, 'delete'))
        return {
          name,
          topicId,
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
          message: 'Authorization failed.',
        };
      const errorCode = cluster.deleteTopic(topicName);
      return {
        name: topicName,
        topicId: topic?.topicId ?? ZERO_UUID,
        errorCode,
        message: errorCode === ErrorCode.NONE ? null : `Topic '${topicName}' does not exist.`,
      };
    });
    const writer = new Writer(context.flexible);
    if (version >= 1) writer.int32(0);
    writer.array(results, (w, result) => {
      if (version >= 6) w.nullableString(result.name).uuid(result.topicId);
      else w.string(result.name ?? '');
      w.int16(result.errorCode);
      if (version >= 5) w.nullableString(result.message);
      w.tags();
    });
    return writer.tags();
  },
};
