/**
 * Protobuf compatibility by Confluent's list of changes, read from the files protobufjs parses.
 * Comparing an original with an update, these are incompatible:
 *
 * - the package changed;
 * - a message or enum removed (a rename is a removal: readers find types by full name);
 * - a field number reused with another type: a scalar of another wire encoding (the compatible
 *   groups are int32/uint32/int64/uint64/bool, sint32/sint64, fixed32/sfixed32, fixed64/sfixed64,
 *   string/bytes), a scalar made a message or back, another message or enum type, a map or
 *   repeated field made singular or back;
 * - a required field added or removed (proto2);
 * - a field moved into an existing oneof, or several fields moved into a new one;
 * - an enum constant removed or its number changed.
 *
 * Adding or removing optional fields, renaming a field, adding messages, enums and constants are
 * compatible.
 */
import protobuf from 'protobufjs';
import { invalidSchema } from './schema-registry-error.js';
import type { SchemaContent } from './schema-types.js';

export interface ProtobufSchema {
  root: protobuf.Root;
  package: string;
}

function addWellKnownImports(root: protobuf.Root, imports: readonly string[] | undefined): void {
  for (const file of imports ?? []) {
    const definition = protobuf.common.get(file);
    if (definition?.nested) root.addJSON(definition.nested);
  }
}

/** Parses a .proto file, its references into the same root first; throws 42201 when it is not one. */
export function parseProtobuf(content: SchemaContent): ProtobufSchema {
  const root = new protobuf.Root();
  const parse = (source: string) => {
    const parsed = protobuf.parse(source, root, { keepCase: true });
    addWellKnownImports(root, parsed.imports);
    return parsed;
  };
  try {
    for (const reference of content.resolvedReferences) parse(reference.schema);
    const parsed = parse(content.schema);
    root.resolveAll();
    return { root, package: parsed.package ?? '' };
  } catch (error) {
    throw invalidSchema((error as Error).message);
  }
}

const WIRE_GROUPS = [
  ['int32', 'uint32', 'int64', 'uint64', 'bool'],
  ['sint32', 'sint64'],
  ['fixed32', 'sfixed32'],
  ['fixed64', 'sfixed64'],
  ['string', 'bytes'],
];

function typesOf(namespace: protobuf.NamespaceBase, into = new Map<string, protobuf.Type | protobuf.Enum>()) {
  for (const child of namespace.nestedArray) {
    if (child instanceof protobuf.Type || child instanceof protobuf.Enum) into.set(child.fullName, child);
    if (child instanceof protobuf.Namespace || child instanceof protobuf.Type) typesOf(child, into);
  }
  return into;
}

/** A map field's key type; protobufjs parses map fields as `MapField`s. */
function keyTypeOf(field: protobuf.Field): string | undefined {
  return (field as unknown as { keyType?: string }).keyType;
}

function fieldKind(field: protobuf.Field): string {
  if (field.map) return `map<${keyTypeOf(field)}, ${fieldType(field)}>`;
  return `${field.repeated ? 'repeated ' : ''}${fieldType(field)}`;
}

function fieldType(field: protobuf.Field): string {
  return field.resolvedType ? field.resolvedType.fullName.replace(/^\./, '') : field.type;
}

function sameWire(original: protobuf.Field, update: protobuf.Field): boolean {
  if (original.map !== update.map || original.repeated !== update.repeated) return false;
  if (original.map && keyTypeOf(original) !== keyTypeOf(update)) return false;
  const before = fieldType(original);
  const after = fieldType(update);
  if (before === after) return true;
  if (original.resolvedType || update.resolvedType) return false;
  return WIRE_GROUPS.some((group) => group.includes(before) && group.includes(after));
}

function fieldProblems(original: protobuf.Type, update: protobuf.Type): string[] {
  const problems: string[] = [];
  const name = original.fullName.replace(/^\./, '');
  for (const before of original.fieldsArray) {
    const after = update.fieldsById[before.id];
    const label = `field '${name}.${before.name}' (number ${before.id})`;
    if (!after) {
      if (before.required) problems.push(`${label}: a required field was removed`);
      continue;
    }
    if (!sameWire(before, after)) {
      problems.push(
        `${label}: number reused with another type, ${fieldKind(before)} became ${fieldKind(after)}`,
      );
    }
    if (before.required !== after.required) {
      problems.push(`${label}: ${after.required ? 'made required' : 'no longer required'}`);
    }
    if (!before.partOf && after.partOf && original.oneofs?.[after.partOf.name]) {
      problems.push(`${label}: moved into the existing oneof '${after.partOf.name}'`);
    }
  }
  for (const after of update.fieldsArray) {
    if (!original.fieldsById[after.id] && after.required) {
      problems.push(`field '${name}.${after.name}' (number ${after.id}): a required field was added`);
    }
  }
  for (const oneof of update.oneofsArray) {
    if (original.oneofs?.[oneof.name]) continue;
    const moved = oneof.fieldsArray.filter((field) => original.fieldsById[field.id]);
    if (moved.length > 1) {
      problems.push(
        `oneof '${name}.${oneof.name}': existing fields ${moved.map((field) => field.name).join(', ')} were moved into a new oneof`,
      );
    }
  }
  return problems;
}

function enumProblems(original: protobuf.Enum, update: protobuf.Enum): string[] {
  const name = original.fullName.replace(/^\./, '');
  const problems: string[] = [];
  for (const [constant, number] of Object.entries(original.values)) {
    const now = update.values[constant];
    if (now === undefined) problems.push(`enum '${name}': constant ${constant} (${number}) was removed`);
    else if (now !== number)
      problems.push(`enum '${name}': constant ${constant} changed from ${number} to ${now}`);
  }
  return problems;
}

/** What makes `update` incompatible with `original`, each naming the element and the rule. */
export function protobufDifferences(original: ProtobufSchema, update: ProtobufSchema): string[] {
  const problems: string[] = [];
  if (original.package !== update.package) {
    problems.push(`package changed from '${original.package}' to '${update.package}'`);
  }
  const updated = typesOf(update.root);
  for (const [fullName, before] of typesOf(original.root)) {
    if (fullName.startsWith('.google.protobuf.')) continue;
    const name = fullName.replace(/^\./, '');
    const after = updated.get(fullName);
    if (!after || after.constructor !== before.constructor) {
      problems.push(
        `${before instanceof protobuf.Enum ? 'enum' : 'message'} '${name}' was removed or renamed`,
      );
    } else if (before instanceof protobuf.Type) {
      problems.push(...fieldProblems(before, after as protobuf.Type));
    } else {
      problems.push(...enumProblems(before, after as protobuf.Enum));
    }
  }
  return problems;
}

/** Why `reader` may fail on what `writer` wrote: the writer is the original, the reader its update. */
export function protobufReaderProblems(reader: ProtobufSchema, writer: ProtobufSchema): string[] {
  return protobufDifferences(writer, reader);
}
