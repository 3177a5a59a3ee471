/**
 * The converters a connector may name in `key.converter` and `value.converter` (Kafka's and
 * Confluent's class names), each configured from the keys under its prefix
 * (`value.converter.schemas.enable`, `value.converter.schema.registry.url`, …). Unset, both are
 * Kafka's worker default: JsonConverter with `schemas.enable=true`.
 */
import { AVRO_CONVERTER } from './avro-converter.js';
import { BYTE_ARRAY_CONVERTER } from './byte-array-converter.js';
import type { Converter, ConverterPlugin } from './converter.js';
import { JSON_CONVERTER } from './json-converter.js';
import { JSON_SCHEMA_CONVERTER } from './json-schema-converter.js';
import { PROTOBUF_CONVERTER } from './protobuf-converter.js';
import { STRING_CONVERTER } from './string-converter.js';

export type { Converter, ConverterPlugin, SchemaAndValue } from './converter.js';

export const CONVERTER_PLUGINS: readonly ConverterPlugin[] = [
  STRING_CONVERTER,
  BYTE_ARRAY_CONVERTER,
  JSON_CONVERTER,
  AVRO_CONVERTER,
  PROTOBUF_CONVERTER,
  JSON_SCHEMA_CONVERTER,
];

export const DEFAULT_CONVERTER = JSON_CONVERTER;

export type ConverterRole = 'key' | 'value';

/** The plugin a class name names: its full name or its simple name. */
export function converterPluginOf(className: string): ConverterPlugin | undefined {
  return CONVERTER_PLUGINS.find(
    (plugin) =>
      plugin.class === className || plugin.class.slice(plugin.class.lastIndexOf('.') + 1) === className,
  );
}

/** The keys under `<role>.converter.`, the prefix removed. */
function ownKeys(config: Record<string, string>, role: ConverterRole): Record<string, string> {
  const prefix = `${role}.converter.`;
  return Object.fromEntries(
    Object.entries(config)
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, value]) => [key.slice(prefix.length), value]),
  );
}

/** The key or value converter a connector's configuration names, configured. */
export function converterFor(config: Record<string, string>, role: ConverterRole): Converter {
  const className = config[`${role}.converter`];
  const plugin = className ? converterPluginOf(className) : DEFAULT_CONVERTER;
  if (!plugin) throw new Error(`Class ${className} could not be found.`);
  return plugin.create(ownKeys(config, role), role === 'key');
}

/** The problems of the converter keys, by the connector's full key. */
export function converterProblems(config: Record<string, string>): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  for (const role of ['key', 'value'] as const) {
    const key = `${role}.converter`;
    const className = config[key];
    const plugin = className ? converterPluginOf(className) : DEFAULT_CONVERTER;
    if (!plugin) {
      problems[key] = [
        `Invalid value ${className} for configuration ${key}: Class ${className} could not be found. Served: ${CONVERTER_PLUGINS.map((each) => each.class).join(', ')}`,
      ];
      continue;
    }
    for (const [name, messages] of Object.entries(plugin.problems?.(ownKeys(config, role)) ?? {})) {
      problems[`${key}.${name}`] = messages;
    }
  }
  return problems;
}
