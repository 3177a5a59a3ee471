import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

const TOPIC_RESOURCE = 2;
const BROKER_RESOURCE = 4;
const DYNAMIC_TOPIC_CONFIG = 1;
const DEFAULT_CONFIG = 5;

interface ConfigEntry {
  name: string;
  value: string;
  isDefault: boolean;
}

/** DescribeConfigs: a topic's cleanup policy and retention (the configs this broker keeps). */
export const describeConfigs: ApiModule = {
  key: 32,
  name: 'DescribeConfigs',
  minVersion: 0,
  maxVersion: 2,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const resources = reader.array((r) => ({
      type: r.int8(),
      name: r.string(),
      keys: r.nullableArray((k) => k.string()),
    }));
    if (version >= 1) reader.bool();
    const results = resources.map((resource) => {
      const answer = (errorCode: number, message: string | null, configs: ConfigEntry[] = []) => ({
        ...resource,
        errorCode,
        message,
        configs,
      });
      if (resource.type === BROKER_RESOURCE) return answer(ErrorCode.NONE, null);
      if (resource.type !== TOPIC_RESOURCE)
        return answer(ErrorCode.INVALID_REQUEST, 'only topic and broker resources');
      if (!isAllowed(principal, 'topic', resource.name, 'describe'))
        return answer(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.');
      const topic = cluster.store.topic(resource.name);
      if (!topic)
        return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${resource.name} does not exist.`);
      const configs: ConfigEntry[] = [
        { name: 'cleanup.policy', value: topic.cleanupPolicy, isDefault: false },
        { name: 'retention.ms', value: String(topic.retentionMs), isDefault: false },
        { name: 'compression.type', value: 'producer', isDefault: true },
        { name: 'max.message.bytes', value: '1048588', isDefault: true },
      ].filter((entry) => !resource.keys || resource.keys.includes(entry.name));
      return answer(ErrorCode.NONE, null, configs);
    });
    return new Writer().int32(0).array(results, (w, result) => {
      w.int16(result.errorCode).nullableString(result.message).int8(result.type).string(result.name);
      w.array(result.configs, (cw, entry) => {
        cw.string(entry.name).nullableString(entry.value).bool(false);
        if (version === 0) cw.bool(entry.isDefault);
        else cw.int8(entry.isDefault ? DEFAULT_CONFIG : DYNAMIC_TOPIC_CONFIG);
        cw.bool(false);
        if (version >= 1) cw.array([], () => undefined);
      });
    });
  },
};
