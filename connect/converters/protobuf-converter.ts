/**
 * Confluent's `ProtobufConverter`: Protobuf messages through the schema registry. After the schema
 * id come the message indexes that locate the message in its file (a zigzag varint count then the
 * indexes; a single 0 for the file's first message). Protobuf maps to Connect as Confluent's
 * ProtobufData maps it: a message to a struct named by its full name, int32/sint32/sfixed32 to
 * int32, the other integers to int64, float and double to float32 and float64, an enum to string,
 * repeated to array, map to map, a nested message to an optional struct. A struct is written as a
 * proto3 message named after the schema (`ConnectDefault1` without a name).
 */
import protobuf from 'protobufjs';
import { logicalNumberOf, type ConnectSchema } from '../connect-record.js';
import { DataException } from '../connect-exceptions.js';
import { isStruct } from './converter.js';
import { registryConverterPlugin, type RegistryFormat } from './registry-converter.js';

const SCALARS: Record<string, ConnectSchema['type']> = {
  double: 'float64',
  float: 'float32',
  int32: 'int32',
  sint32: 'int32',
  sfixed32: 'int32',
  int64: 'int64',
  sint64: 'int64',
  sfixed64: 'int64',
  uint32: 'int64',
  fixed32: 'int64',
  uint64: 'int64',
  fixed64: 'int64',
  bool: 'boolean',
  string: 'string',
  bytes: 'bytes',
};

const PROTO_TYPES: Partial<Record<ConnectSchema['type'], string>> = {
  int8: 'int32',
  int16: 'int32',
  int32: 'int32',
  int64: 'int64',
  float32: 'float',
  float64: 'double',
  boolean: 'bool',
  string: 'string',
  bytes: 'bytes',
};

function fieldSchema(field: protobuf.Field, seen: Set<string>): ConnectSchema {
  field.resolve();
  const element = (): ConnectSchema => {
    if (field.resolvedType instanceof protobuf.Enum)
      return { type: 'string', name: field.resolvedType.fullName.slice(1) };
    if (field.resolvedType instanceof protobuf.Type)
      return { ...messageSchema(field.resolvedType, seen), optional: true };
    const scalar = SCALARS[field.type];
    if (!scalar) throw new DataException(`Protobuf type ${field.type} is not supported`);
    return { type: scalar };
  };
  if (field instanceof protobuf.MapField) {
    const key = SCALARS[field.keyType];
    return { type: 'map', keys: { type: key ?? 'string' }, values: element(), optional: true };
  }
  if (field.repeated) return { type: 'array', items: element(), optional: true };
  return field.options?.proto3_optional || field.partOf ? { ...element(), optional: true } : element();
}

function messageSchema(type: protobuf.Type, seen = new Set<string>()): ConnectSchema {
  if (seen.has(type.fullName))
    throw new DataException(`recursive Protobuf message ${type.fullName} is not supported`);
  const inner = new Set(seen).add(type.fullName);
  return {
    type: 'struct',
    name: type.fullName.slice(1),
    fields: type.fieldsArray.map((field) => ({ ...fieldSchema(field, inner), field: field.name })),
  };
}

/** The messages declared at the top of a file (or inside `parent`), in declaration order. */
function messagesOf(parent: protobuf.NamespaceBase): protobuf.Type[] {
  return parent.nestedArray.filter((nested): nested is protobuf.Type => nested instanceof protobuf.Type);
}

function readZigzagVarint(bytes: Buffer, at: { offset: number }): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (at.offset >= bytes.length) throw new DataException('the message indexes end early');
    const byte = bytes[at.offset++]!;
    result |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) break;
    shift += 7;
    if (shift > 28) throw new DataException('a message index is too long');
  }
  return (result >>> 1) ^ -(result & 1);
}

interface ParsedProto {
  root: protobuf.Root;
  file: protobuf.NamespaceBase;
}

/** The Connect value of a decoded message: plain objects, Buffers for bytes, numbers for longs. */
function plainValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array) return Buffer.from(value);
  if (Array.isArray(value)) return value.map(plainValue);
  if (typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plainValue(item)]));
  return value;
}

const PROTO_NAME = /[^A-Za-z0-9_]/g;
const messageNameOf = (schema: ConnectSchema, fallback: string) =>
  (schema.name ? schema.name.slice(schema.name.lastIndexOf('.') + 1) : fallback).replace(PROTO_NAME, '_');

/** The `message` declaration of a struct, its nested structs declared inside it. */
function messageText(schema: ConnectSchema, name: string, indent: string): string {
  const nested = new Map<string, string>();
  const typeOf = (field: ConnectSchema, fieldName: string): string => {
    if (field.type === 'struct') {
      const nestedName = messageNameOf(field, `${fieldName[0]!.toUpperCase()}${fieldName.slice(1)}`);
      // A struct met again (a change event's before and after) is declared once.
      if (!nested.has(nestedName)) nested.set(nestedName, messageText(field, nestedName, `${indent}  `));
      return nestedName;
    }
    const scalar = PROTO_TYPES[field.type];
    if (!scalar)
      throw new DataException(
        `a ${field.type} inside a ${field.type === 'array' ? 'list' : 'map'} cannot be written as Protobuf`,
      );
    return scalar;
  };
  const lines = (schema.fields ?? []).map((field, index) => {
    const fieldName = field.field.replace(PROTO_NAME, '_');
    let declaration: string;
    if (field.type === 'array')
      declaration = `repeated ${typeOf(field.items ?? { type: 'string' }, fieldName)}`;
    else if (field.type === 'map')
      declaration = `map<string, ${typeOf(field.values ?? { type: 'string' }, fieldName)}>`;
    else
      declaration = `${field.optional && field.type !== 'struct' ? 'optional ' : ''}${typeOf(field, fieldName)}`;
    return `${indent}  ${declaration} ${fieldName} = ${index + 1};`;
  });
  return [`${indent}message ${name} {`, ...nested.values(), ...lines, `${indent}}`].join('\n');
}

function protoValue(schema: ConnectSchema | undefined, value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return logicalNumberOf(schema, value);
  if (!schema) return value;
  if (schema.type === 'struct' && isStruct(value)) {
    return Object.fromEntries(
      (schema.fields ?? []).map((field) => [
        field.field.replace(PROTO_NAME, '_'),
        protoValue(field, value[field.field]),
      ]),
    );
  }
  if (schema.type === 'array' && Array.isArray(value))
    return value.map((item) => protoValue(schema.items, item));
  if (schema.type === 'map' && isStruct(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, protoValue(schema.values, item)]),
    );
  }
  if (typeof value === 'bigint') return Number(value);
  return value;
}

const PROTOBUF: RegistryFormat<ParsedProto> = {
  name: 'Protobuf',
  schemaType: 'PROTOBUF',
  parse(text) {
    const parsed = protobuf.parse(text, { keepCase: true });
    const file = parsed.package ? parsed.root.lookup(parsed.package) : parsed.root;
    if (!(file instanceof protobuf.Namespace))
      throw new DataException(`package ${parsed.package} declares nothing`);
    parsed.root.resolveAll();
    return { root: parsed.root, file };
  },
  decode({ file }, payload) {
    const at = { offset: 0 };
    const count = readZigzagVarint(payload, at);
    const indexes = count === 0 ? [0] : Array.from({ length: count }, () => readZigzagVarint(payload, at));
    let parent: protobuf.NamespaceBase = file;
    let type: protobuf.Type | undefined;
    for (const index of indexes) {
      type = messagesOf(parent)[index];
      if (!type) throw new DataException(`no message at index ${indexes.join('.')} of the schema`);
      parent = type;
    }
    const message = type!.decode(payload.subarray(at.offset));
    const object = type!.toObject(message, {
      longs: Number,
      enums: String,
      defaults: true,
      arrays: true,
      objects: true,
    });
    return { schema: messageSchema(type!), value: plainValue(object) };
  },
  schemaOf(schema) {
    if (schema.type !== 'struct')
      throw new DataException(`only a struct can be written as Protobuf, not ${schema.type}`);
    const qualified = schema.name ?? 'ConnectDefault1';
    const dot = qualified.lastIndexOf('.');
    const pkg =
      dot > 0
        ? qualified
            .slice(0, dot)
            .split('.')
            .map((part) => part.replace(PROTO_NAME, '_'))
            .join('.')
        : '';
    const name = messageNameOf(schema, 'ConnectDefault1');
    const text = [
      `syntax = "proto3";`,
      ...(pkg ? [`package ${pkg};`] : []),
      '',
      messageText(schema, name, ''),
      '',
    ].join('\n');
    return { text, recordName: pkg ? `${pkg}.${name}` : name };
  },
  encode({ file }, schema, value) {
    const type = messagesOf(file)[0]!;
    const written = protoValue(schema, value) as Record<string, unknown>;
    const problem = type.verify(written);
    if (problem) throw new DataException(`the value does not match its schema: ${problem}`);
    // Message indexes [0]: the file's first message, written as the single byte 0.
    return Buffer.concat([Buffer.from([0]), Buffer.from(type.encode(type.fromObject(written)).finish())]);
  },
};

export const PROTOBUF_CONVERTER = registryConverterPlugin(
  'io.confluent.connect.protobuf.ProtobufConverter',
  PROTOBUF,
);
