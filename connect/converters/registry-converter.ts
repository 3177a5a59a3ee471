/**
 * What Confluent's registry converters share: the wire format (magic byte 0, the schema id in four
 * bytes, then the format's payload), the schema looked up by id to read, and on write the record's
 * schema registered (or looked up) under the subject its name strategy gives. Each format says how
 * its schemas map to Connect's and how it encodes a value.
 */
import type { ConnectSchema } from '../connect-record.js';
import { ConnectException, DataException } from '../connect-exceptions.js';
import type { Converter, ConverterPlugin, SchemaAndValue } from './converter.js';
import {
  registryProblems,
  SchemaRegistryClient,
  strategyProblems,
  subjectNameStrategyOf,
  type RegistrySchemaType,
} from './schema-registry-client.js';

const MAGIC_BYTE = 0;
const HEADER_BYTES = 5;

export interface RegistryFormat<Parsed> {
  /** As Confluent's messages name it: Avro, Protobuf, JSON Schema. */
  name: string;
  schemaType: RegistrySchemaType;
  parse(schema: string): Parsed;
  /** Reads the payload that follows the schema id. */
  decode(parsed: Parsed, payload: Buffer): SchemaAndValue;
  /** The registry schema of a Connect schema, and the record name the subject strategies use. */
  schemaOf(schema: ConnectSchema): { text: string; recordName: string };
  /** The payload that follows the schema id. */
  encode(parsed: Parsed, schema: ConnectSchema, value: unknown): Buffer;
}

export function registryConverterPlugin<Parsed>(
  className: string,
  format: RegistryFormat<Parsed>,
): ConverterPlugin {
  return {
    class: className,
    create(config, isKey): Converter {
      const client = new SchemaRegistryClient(config);
      const strategy = subjectNameStrategyOf(config, isKey)!;
      const autoRegister = (config['auto.register.schemas'] ?? 'true').trim().toLowerCase() !== 'false';
      const parsedByText = new Map<string, Parsed>();
      const parsed = (text: string) => {
        let found = parsedByText.get(text);
        if (found === undefined) {
          found = format.parse(text);
          parsedByText.set(text, found);
        }
        return found;
      };
      // Confluent's messages; a registry that did not answer stays retriable.
      const failed = (message: string, error: unknown) =>
        error instanceof ConnectException && !(error instanceof DataException)
          ? error
          : new DataException(`${message}: ${(error as Error).message}`, { cause: error });
      return {
        className,
        async toConnectData(topic, bytes) {
          if (bytes === null || bytes.length === 0) return { value: null };
          try {
            if (bytes.length < HEADER_BYTES || bytes[0] !== MAGIC_BYTE)
              throw new DataException('Unknown magic byte!');
            const id = bytes.readInt32BE(1);
            const registered = await client.schemaById(id);
            if (registered.schemaType !== format.schemaType) {
              throw new DataException(`schema ${id} is ${registered.schemaType}, not ${format.name}`);
            }
            return format.decode(parsed(registered.schema), bytes.subarray(HEADER_BYTES));
          } catch (error) {
            throw failed(`Failed to deserialize data for topic ${topic} to ${format.name}`, error);
          }
        },
        async fromConnectData(topic, schema, value) {
          if (value === null || value === undefined) return null;
          try {
            if (!schema)
              throw new DataException(`the ${format.name} converter writes only records with a schema`);
            const { text, recordName } = format.schemaOf(schema);
            const id = await client.idOf(
              strategy(topic, isKey, recordName),
              { schema: text, schemaType: format.schemaType },
              autoRegister,
            );
            const header = Buffer.alloc(HEADER_BYTES);
            header.writeUInt8(MAGIC_BYTE, 0);
            header.writeInt32BE(id, 1);
            return Buffer.concat([header, format.encode(parsed(text), schema, value)]);
          } catch (error) {
            throw failed(`Failed to serialize ${format.name} data from topic ${topic}`, error);
          }
        },
      };
    },
    problems: (config) => ({ ...registryProblems(config), ...strategyProblems(config) }),
  };
}
