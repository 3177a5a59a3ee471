/**
 * What a converter is, as Kafka Connect's `org.apache.kafka.connect.storage.Converter`: bytes of a
 * record's key or value into Connect data with its schema (a sink reads them so), and Connect data
 * back into bytes (a source writes them so). Each converter is configured from the connector's
 * `key.converter.*` or `value.converter.*` keys, the prefix removed.
 */
import type { ConnectSchema } from '../connect-record.js';

export interface SchemaAndValue {
  schema?: ConnectSchema;
  value: unknown;
}

export interface Converter {
  /** The Java class it stands for, as errors and the dead-letter headers name it. */
  readonly className: string;
  toConnectData(topic: string, bytes: Buffer | null): Promise<SchemaAndValue>;
  fromConnectData(topic: string, schema: ConnectSchema | undefined, value: unknown): Promise<Buffer | null>;
}

export interface ConverterPlugin {
  class: string;
  /** Builds it from its own keys (the `key.converter.` or `value.converter.` prefix removed). */
  create(config: Record<string, string>, isKey: boolean): Converter;
  /** Its keys' problems, by key (prefix removed). */
  problems?(config: Record<string, string>): Record<string, string[]>;
}

/** Whether a Connect value is a struct: a plain object that is no bytes. */
export function isStruct(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}
