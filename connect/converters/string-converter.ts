/** Kafka's `StringConverter`: the bytes as a string in `converter.encoding` (UTF-8 by default). */
import type { Converter, ConverterPlugin } from './converter.js';

const ENCODINGS: Record<string, BufferEncoding> = {
  UTF8: 'utf8',
  'UTF-8': 'utf8',
  'UTF-16LE': 'utf16le',
  'ISO-8859-1': 'latin1',
  'US-ASCII': 'ascii',
};

const encodingOf = (name: string | undefined) => ENCODINGS[(name || 'UTF8').toUpperCase()];

const OPTIONAL_STRING = { type: 'string', optional: true } as const;

export const STRING_CONVERTER: ConverterPlugin = {
  class: 'org.apache.kafka.connect.storage.StringConverter',
  create(config): Converter {
    const encoding = encodingOf(config['converter.encoding']) ?? 'utf8';
    return {
      className: STRING_CONVERTER.class,
      async toConnectData(_topic, bytes) {
        return { schema: OPTIONAL_STRING, value: bytes === null ? null : bytes.toString(encoding) };
      },
      async fromConnectData(_topic, _schema, value) {
        if (value === null || value === undefined) return null;
        const text =
          typeof value === 'object' && !Buffer.isBuffer(value) ? JSON.stringify(value) : String(value);
        return Buffer.from(text, encoding);
      },
    };
  },
  problems(config): Record<string, string[]> {
    const name = config['converter.encoding'];
    return name && !encodingOf(name)
      ? {
          'converter.encoding': [`Unsupported encoding ${name}: one of ${Object.keys(ENCODINGS).join(', ')}`],
        }
      : {};
  },
};
