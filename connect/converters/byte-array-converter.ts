/** Kafka's `ByteArrayConverter`: the bytes as they are, an optional bytes schema. */
import { DataException } from '../connect-exceptions.js';
import type { Converter, ConverterPlugin } from './converter.js';

const OPTIONAL_BYTES = { type: 'bytes', optional: true } as const;

export const BYTE_ARRAY_CONVERTER: ConverterPlugin = {
  class: 'org.apache.kafka.connect.converters.ByteArrayConverter',
  create(): Converter {
    return {
      className: BYTE_ARRAY_CONVERTER.class,
      async toConnectData(_topic, bytes) {
        return { schema: OPTIONAL_BYTES, value: bytes };
      },
      async fromConnectData(_topic, schema, value) {
        if (schema && schema.type !== 'bytes') {
          throw new DataException(`Invalid schema type for ByteArrayConverter: ${schema.type.toUpperCase()}`);
        }
        if (value === null || value === undefined) return null;
        if (!Buffer.isBuffer(value) && !(value instanceof Uint8Array)) {
          throw new DataException(
            `ByteArrayConverter is not compatible with objects of type ${typeof value}`,
          );
        }
        return Buffer.from(value);
      },
    };
  },
};
