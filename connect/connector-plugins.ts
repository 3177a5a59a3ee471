/**
 * Looking up the connectors of the list (connect/connectors, one folder each) by `connector.class`,
 * and the validation Kafka Connect answers for `PUT /connector-plugins/<class>/config/validate`.
 */
import { converterProblems } from './converters/index.js';
import { errorHandlingProblems } from './error-handling.js';
import { transformationConfigInfo } from './transforms/index.js';
import { CONNECTOR_PLUGINS } from './connectors/index.js';
import { listOf, type ConfigDefinition, type ConfigType, type ConnectorPlugin } from './connectors/plugin.js';

/** The plugin a `connector.class` names: its full class name, its simple name, or that without `Connector`. */
export function pluginOf(className: string | undefined): ConnectorPlugin | undefined {
  if (!className) return undefined;
  return CONNECTOR_PLUGINS.find((plugin) => {
    const simple = plugin.class.slice(plugin.class.lastIndexOf('.') + 1);
    return [plugin.class, simple, simple.replace(/Connector$/, '')].includes(className);
  });
}

/** How many tasks a connector runs: a sink its `tasks.max`, a source one. */
export function taskCountOf(config: Record<string, string>): number {
  if (pluginOf(config['connector.class'])?.type !== 'sink') return 1;
  const max = Number(config['tasks.max'] ?? '1');
  return Number.isSafeInteger(max) && max > 1 ? max : 1;
}

/** Keys whose values are secrets: never answered in clear, kept sealed. */
export function isSecretKey(plugin: ConnectorPlugin | undefined, key: string): boolean {
  const declared = plugin?.definitions.find((definition) => definition.name === key);
  return declared
    ? declared.type === 'PASSWORD'
    : // A registry converter's `basic.auth.user.info` is `user:password`.
      /(password|secret|\.key$|basic\.auth\.user\.info$)/i.test(key) && key !== 'aws.access.key.id';
}

function valueProblems(definition: ConfigDefinition, value: string | undefined): string[] {
  if (value === undefined || value === '') {
    return definition.required && definition.defaultValue === undefined
      ? [`Missing required configuration "${definition.name}" which has no default value.`]
      : [];
  }
  if (['INT', 'SHORT', 'LONG'].includes(definition.type) && !/^-?\d+$/.test(value.trim())) {
    return [
      `Invalid value ${value} for configuration ${definition.name}: Not a number of type ${definition.type}`,
    ];
  }
  if (definition.type === 'BOOLEAN' && !['true', 'false'].includes(value.trim().toLowerCase())) {
    return [
      `Invalid value ${value} for configuration ${definition.name}: Expected value to be either true or false`,
    ];
  }
  if (definition.allowed && !definition.allowed.includes(value)) {
    return [
      `Invalid value ${value} for configuration ${definition.name}: must be one of ${definition.allowed.join(', ')}`,
    ];
  }
  return [];
}

export interface ConfigValueInfo {
  definition: {
    name: string;
    type: ConfigType;
    required: boolean;
    default_value: string | null;
    importance: 'HIGH' | 'MEDIUM';
    documentation: string;
    group: string;
    width: 'NONE';
    display_name: string;
    dependents: string[];
    order: number;
  };
  value: {
    name: string;
    value: string | null;
    recommended_values: string[];
    errors: string[];
    visible: true;
  };
}

/** Kafka Connect's `ConfigInfos`: every key's definition and value, with the problems found. */
export interface ConfigInfos {
  name: string;
  error_count: number;
  groups: string[];
  configs: ConfigValueInfo[];
}

/** Validates a connector's configuration against its plugin, as `config/validate` answers. */
export function validateConnectorConfig(
  plugin: ConnectorPlugin,
  config: Record<string, string>,
): ConfigInfos {
  const cross = plugin.crossCheck?.(config) ?? {};
  const shared = {
    ...errorHandlingProblems(config, plugin.type === 'sink' ? listOf(config.topics) : []),
    // A converter's own keys are answered under the converter's key, each named.
    ...Object.fromEntries(
      Object.entries(converterProblems(config)).map(([key, messages]) => {
        const converterKey = key.startsWith('key.') ? 'key.converter' : 'value.converter';
        return [key, key === converterKey ? messages : messages.map((message) => `${key}: ${message}`)];
      }),
    ),
  };
  for (const [key, messages] of Object.entries(shared)) {
    const owner = plugin.definitions.some((definition) => definition.name === key)
      ? key
      : ['key.converter', 'value.converter'].find((converter) => key.startsWith(`${converter}.`));
    if (owner) cross[owner] = [...(cross[owner] ?? []), ...messages];
  }
  if (Number(config['tasks.max'] ?? '1') < 1) cross['tasks.max'] = ['tasks.max must be at least 1'];
  // Transforms and predicates add their keys, checked by their own definitions, after the connector's.
  const transforms = transformationConfigInfo(config);
  const definitions = [...plugin.definitions, ...transforms.definitions];
  const configs = definitions.map((definition, index): ConfigValueInfo => {
    const value = config[definition.name];
    const errors =
      index < plugin.definitions.length
        ? [...valueProblems(definition, value), ...(cross[definition.name] ?? [])]
        : (transforms.problems[definition.name] ?? []);
    return {
      definition: {
        name: definition.name,
        type: definition.type,
        required: definition.required,
        default_value: definition.defaultValue ?? null,
        importance: definition.required ? 'HIGH' : 'MEDIUM',
        documentation: definition.documentation,
        group: definition.group,
        width: 'NONE',
        display_name: definition.name,
        dependents: [],
        order: index + 1,
      },
      value: {
        name: definition.name,
        value: value === undefined ? null : definition.type === 'PASSWORD' ? '[hidden]' : value,
        recommended_values: [...(definition.allowed ?? [])],
        errors,
        visible: true,
      },
    };
  });
  return {
    name: plugin.class,
    error_count: configs.reduce((count, info) => count + info.value.errors.length, 0),
    groups: [...new Set(definitions.map((definition) => definition.group))],
    configs,
  };
}
