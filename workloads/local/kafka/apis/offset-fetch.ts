import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** OffsetFetch: the group's committed offsets (-1 where none), all of them when topics is null (v2+). */
export const offsetFetch: ApiModule = {
  key: 9,
  name: 'OffsetFetch',
  minVersion: 0,
  maxVersion: 5,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const groupId = reader.string();
    const requested = reader.nullableArray((r) => ({
      name: r.string(),
      partitions: r.array((p) => p.int32()),
    }));
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
    const writer = new Writer();
    if (version >= 3) writer.int32(0);
    writer.array(topics, (w, topic) => {
      const topicAllowed = isAllowed(principal, 'topic', topic.name, 'describe');
      w.string(topic.name).array(topic.partitions, (pw, partition) => {
        const entry = byKey.get(`${topic.name}\u0000${partition}`);
        let errorCode: number = ErrorCode.NONE;
        if (!groupAllowed) errorCode = ErrorCode.GROUP_AUTHORIZATION_FAILED;
        else if (!topicAllowed) errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        pw.int32(partition).int64(errorCode === ErrorCode.NONE && entry ? entry.offset : -1);
        if (version >= 5) pw.int32(-1);
        pw.nullableString(entry?.metadata ?? '').int16(errorCode);
      });
    });
    if (version >= 2) writer.int16(groupAllowed ? ErrorCode.NONE : ErrorCode.GROUP_AUTHORIZATION_FAILED);
    return writer;
  },
};
