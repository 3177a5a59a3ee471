import { isAllowed, type Principal } from '../acl.js';
import type { KafkaCluster } from '../cluster.js';
import { ErrorCode } from '../errors.js';
import { Writer, type Reader } from '../protocol/codec.js';
import { isRefusal, KEPT_TOPIC_CONFIGS, planTopicConfigs } from '../topic-configs.js';
import type { Refusal } from '../topic-rules.js';
import type { ApiModule } from './api.js';
import { ResourceType } from './describe-configs.js';

export interface ConfigResourceAnswer {
  type: number;
  name: string;
  errorCode: number;
  message: string | null;
}

/**
 * Applies a topic's new settings for AlterConfigs and IncrementalAlterConfigs: ALTER_CONFIGS is
 * the platform's ALTER on the topic; the change goes through the cluster, so the REST topic and
 * its object show it; validateOnly checks without changing.
 */
export function alterTopic(
  cluster: KafkaCluster,
  principal: Principal,
  resource: { type: number; name: string },
  settings: readonly { name: string; value: string | null }[] | Refusal,
  validateOnly: boolean,
): ConfigResourceAnswer {
  const answer = (errorCode: number, message: string | null = null) => ({ ...resource, errorCode, message });
  if (resource.type === ResourceType.BROKER)
    return answer(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Broker configs are managed by the platform.');
  if (resource.type !== ResourceType.TOPIC) return answer(ErrorCode.INVALID_REQUEST, 'only topic resources');
  if (!isAllowed(principal, 'topic', resource.name, 'alter'))
    return answer(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.');
  if (!cluster.store.topic(resource.name))
    return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${resource.name} does not exist.`);
  if ('errorCode' in settings) return answer(settings.errorCode, settings.message);
  const change = planTopicConfigs(settings, cluster.limits);
  if (isRefusal(change)) return answer(change.errorCode, change.message);
  if (validateOnly) return answer(ErrorCode.NONE);
  const refusal = cluster.updateTopicConfig(resource.name, change);
  return refusal ? answer(refusal.errorCode, refusal.message) : answer(ErrorCode.NONE);
}

export function writeConfigAnswers(writer: Writer, answers: readonly ConfigResourceAnswer[]): Writer {
  return writer
    .int32(0)
    .array(answers, (w, answer) =>
      w.int16(answer.errorCode).nullableString(answer.message).int8(answer.type).string(answer.name).tags(),
    )
    .tags();
}

/** Reads the resources of AlterConfigs and IncrementalAlterConfigs; `entry` reads one config. */
export function readConfigResources<T>(reader: Reader, entry: (reader: Reader) => T) {
  const resources = reader.array((r) => {
    const resource = {
      type: r.int8(),
      name: r.string(),
      configs: r.array((c) => {
        const config = entry(c);
        c.tags();
        return config;
      }),
    };
    r.tags();
    return resource;
  });
  const validateOnly = reader.bool();
  reader.tags();
  return { resources, validateOnly };
}

/**
 * AlterConfigs: replaces a topic's configs with those given, every other one the platform keeps
 * going back to its default, as Kafka's non-incremental alteration does.
 */
export const alterConfigs: ApiModule = {
  key: 33,
  name: 'AlterConfigs',
  minVersion: 0,
  maxVersion: 2,
  flexibleVersion: 2,
  handle(context, reader) {
    const { resources, validateOnly } = readConfigResources(reader, (c) => ({
      name: c.string(),
      value: c.nullableString(),
    }));
    const answers = resources.map((resource) => {
      const given = new Set(resource.configs.map((config) => config.name));
      const reset = KEPT_TOPIC_CONFIGS.filter((name) => !given.has(name)).map((name) => ({
        name,
        value: null,
      }));
      return alterTopic(
        context.cluster,
        context.principal,
        resource,
        [...resource.configs, ...reset],
        validateOnly,
      );
    });
    return writeConfigAnswers(new Writer(context.flexible), answers);
  },
};
