import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

/** The one log directory of a cluster, as tools show it. */
export const LOG_DIR = '/var/lib/cloudplane/streaming';

/**
 * DescribeLogDirs: the cluster's one log directory with the size of each partition the user may
 * DESCRIBE (every topic when the request names none). Every listener serves every partition, so
 * each broker reports them all; no replica lags (offset lag 0). From v4 the directory's total
 * and usable bytes: the tier's storage when it has a limit, -1 (unknown) when not.
 */
export const describeLogDirs: ApiModule = {
  key: 35,
  name: 'DescribeLogDirs',
  minVersion: 0,
  maxVersion: 4,
  flexibleVersion: 2,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const requested = reader.nullableArray((r) => {
      const topic = { name: r.string(), partitions: r.array((p) => p.int32()) };
      r.tags();
      return topic;
    });
    reader.tags();
    const topics = (
      requested ??
      cluster.store.topics().map((topic) => ({
        name: topic.name,
        partitions: Array.from({ length: topic.partitions }, (_, i) => i),
      }))
    )
      .filter((topic) => isAllowed(principal, 'topic', topic.name, 'describe'))
      .map((topic) => ({
        name: topic.name,
        partitions: topic.partitions.flatMap((partition) => {
          const state = cluster.store.partition(topic.name, partition);
          return state ? [{ partition, size: state.sizeBytes }] : [];
        }),
      }))
      .filter((topic) => topic.partitions.length > 0);
    const writer = new Writer(context.flexible).int32(0);
    if (version >= 3) writer.int16(ErrorCode.NONE);
    writer.array([LOG_DIR], (w, dir) => {
      w.int16(ErrorCode.NONE).string(dir);
      w.array(topics, (tw, topic) => {
        tw.string(topic.name).array(topic.partitions, (pw, entry) =>
          pw.int32(entry.partition).int64(entry.size).int64(0).bool(false).tags(),
        );
        tw.tags();
      });
      if (version >= 4) {
        const total = cluster.limits.storageBytes;
        w.int64(total ?? -1).int64(total === null ? -1 : Math.max(0, total - cluster.store.totalBytes()));
      }
      w.tags();
    });
    return writer.tags();
  },
};
