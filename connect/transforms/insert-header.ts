/**
 * `InsertHeader`: adds a header with a literal value, parsed as Kafka's `Values.parseString`
 * parses one (a number, boolean, null, array or map literal where it is one; a string otherwise).
 */
import type { ConnectHeader, ConnectSchema } from '../connect-record.js';
import type { TransformationPlugin } from './transformation.js';

/** A literal with the schema `Values.parseString` infers for the simple cases. */
export function parsedLiteral(text: string): { value: unknown; schema?: ConnectSchema } {
  const trimmed = text.trim();
  if (trimmed === '') return { value: text, schema: { type: 'string' } };
  if (trimmed === 'null') return { value: null };
  if (trimmed === 'true' || trimmed === 'false')
    return { value: trimmed === 'true', schema: { type: 'boolean' } };
  if (/^[+-]?\d+$/.test(trimmed)) {
    const whole = BigInt(trimmed);
    for (const [type, bits] of [
      ['int8', 8],
      ['int16', 16],
      ['int32', 32],
      ['int64', 64],
    ] as const) {
      if (BigInt.asIntN(bits, whole) === whole) {
        return {
          value: bits === 64 && !Number.isSafeInteger(Number(whole)) ? whole : Number(whole),
          schema: { type },
        };
      }
    }
  }
  if (/^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$/.test(trimmed)) {
    return { value: Number(trimmed), schema: { type: 'float64' } };
  }
  if (
    (trimmed.startsWith('[') && trimmed.endsWith(']')) ||
    (trimmed.startsWith('{') && trimmed.endsWith('}'))
  ) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      return Array.isArray(parsed)
        ? { value: parsed, schema: { type: 'array', items: { type: 'string', optional: true } } }
        : { value: parsed };
    } catch {
      // Not JSON: Kafka takes it as the string it is.
    }
  }
  return { value: text, schema: { type: 'string' } };
}

export const INSERT_HEADER: TransformationPlugin = {
  class: 'org.apache.kafka.connect.transforms.InsertHeader',
  sides: 'record',
  keys: [
    { name: 'header', type: 'STRING', required: true, documentation: 'The name of the header.' },
    {
      name: 'value.literal',
      type: 'STRING',
      required: true,
      documentation: 'The literal value that is to be set as the header value on all records.',
    },
  ],
  configure(settings) {
    const key = settings.string('header') ?? '';
    const { value, schema } = parsedLiteral(settings.string('value.literal') ?? '');
    const header: ConnectHeader = schema ? { key, value, schema } : { key, value };
    return (record) => ({ ...record, headers: [...record.headers, header] });
  },
};
