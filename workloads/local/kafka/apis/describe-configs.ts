import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import { ConfigSource, describeTopicConfigs, type TopicConfigEntry } from '../topic-configs.js';
import type { ApiModule } from './api.js';

/** Kafka's ConfigResource types. */
export const ResourceType = { TOPIC: 2, BROKER: 4 } as const;

/**
 * DescribeConfigs: every topic config of Kafka with its value, source (the topic's own or the
 * default), type and documentation (v3+), or the keys asked for. A broker has no config a
 * client may read here: it answers an empty list.
 */
export const describeConfigs: ApiModule = {
  key: 32,
  name: 'DescribeConfigs',
  minVersion: 0,
  maxVersion: 4,
  flexibleVersion: 4,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const resources = reader.array((r) => {
      const resource = { type: r.int8(), name: r.string(), keys: r.nullableArray((k) => k.string()) };
      r.tags();
      return resource;
    });
    const synonyms = version >= 1 ? reader.bool() : false;
    const documentation = version >= 3 ? reader.bool() : false;
    reader.tags();
    const results = resources.map((resource) => {
      const answer = (errorCode: number, message: string | null, configs: TopicConfigEntry[] = []) => ({
        ...resource,
        errorCode,
        message,
        configs,
      });
      if (resource.type === ResourceType.BROKER) return answer(ErrorCode.NONE, null);
      if (resource.type !== ResourceType.TOPIC)
        return answer(ErrorCode.INVALID_REQUEST, 'only topic and broker resources');
      if (!isAllowed(principal, 'topic', resource.name, 'describe'))
        return answer(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.');
      const topic = cluster.store.topic(resource.name);
      if (!topic)
        return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${resource.name} does not exist.`);
      return answer(ErrorCode.NONE, null, describeTopicConfigs(topic, cluster.limits, resource.keys));
    });
    const writer = new Writer(context.flexible).int32(0);
    writer.array(results, (w, result) => {
      w.int16(result.errorCode).nullableString(result.message).int8(result.type).string(result.name);
      w.array(result.configs, (cw, entry) => {
        cw.string(entry.name).nullableString(entry.value).bool(entry.readOnly);
        if (version === 0) cw.bool(entry.source === ConfigSource.DEFAULT_CONFIG);
        else cw.int8(entry.source);
        cw.bool(false);
        if (version >= 1)
          cw.array(synonyms ? [entry] : [], (sw, synonym) =>
            sw.string(synonym.name).nullableString(synonym.value).int8(synonym.source).tags(),
          );
        if (version >= 3) cw.int8(entry.type).nullableString(documentation ? entry.documentation : null);
        cw.tags();
      });
      w.tags();
    });
    return writer.tags();
  },
};
