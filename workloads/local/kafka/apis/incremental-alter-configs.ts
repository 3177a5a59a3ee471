import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { Refusal } from '../topic-rules.js';
import type { ApiModule } from './api.js';
import { alterTopic, readConfigResources, writeConfigAnswers } from './alter-configs.js';

/** IncrementalAlterConfigs' operations. */
const Operation = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

/**
 * IncrementalAlterConfigs: sets (SET) or resets to the default (DELETE) only the configs given.
 * APPEND and SUBTRACT apply to list configs; the one list the platform keeps, cleanup.policy,
 * holds a single policy, so they are INVALID_CONFIG.
 */
export const incrementalAlterConfigs: ApiModule = {
  key: 44,
  name: 'IncrementalAlterConfigs',
  minVersion: 0,
  maxVersion: 1,
  flexibleVersion: 1,
  handle(context, reader) {
    const { resources, validateOnly } = readConfigResources(reader, (c) => ({
      name: c.string(),
      operation: c.int8(),
      value: c.nullableString(),
    }));
    const answers = resources.map((resource) => {
      const unsupported = resource.configs.find(
        (config) => config.operation !== Operation.SET && config.operation !== Operation.DELETE,
      );
      const settings: { name: string; value: string | null }[] | Refusal = unsupported
        ? {
            errorCode: ErrorCode.INVALID_CONFIG,
            message: `Operation ${unsupported.operation} on ${unsupported.name}: only SET and DELETE are supported`,
          }
        : resource.configs.map((config) => ({
            name: config.name,
            value: config.operation === Operation.DELETE ? null : config.value,
          }));
      return alterTopic(context.cluster, context.principal, resource, settings, validateOnly);
    });
    return writeConfigAnswers(new Writer(context.flexible), answers);
  },
};
