/**
 * Field paths as KIP-821 spells them (`field.syntax.version`): `V1` names a top-level field; `V2`
 * walks nested structs and maps with dots, a name holding dots being wrapped in backticks
 * (`` `foo.bar`.baz ``, a backtick inside one escaped with a backslash).
 */
import type { ConnectField, ConnectSchema } from '../connect-record.js';
import {
  fieldsOf,
  fieldValue,
  isPlainObject,
  requireMap,
  TransformConfigError,
  type TransformKey,
} from './transformation.js';

export const FIELD_SYNTAX_VERSION: TransformKey = {
  name: 'field.syntax.version',
  type: 'STRING',
  required: false,
  defaultValue: 'V1',
  allowed: ['V1', 'V2', 'v1', 'v2'],
  documentation:
    'Defines the version of the syntax to access fields. If set to `V1`, then the field paths are limited to access the elements at the root level of the struct or map. If set to `V2`, the syntax will support accessing nested elements. To access nested elements, dotted notation is used. If dots are already included in the field name, then backtick pairs can be used to wrap field names containing dots.',
};

function incomplete(path: string, at: number): never {
  throw new TransformConfigError(
    undefined,
    `Incomplete backtick pair in path: [${path}], consider adding a backslash before backtick at position ${at} to escape it`,
  );
}

function stepsV2(path: string): string[] {
  const steps: string[] = [];
  let index = 0;
  while (index < path.length && index >= 0) {
    if (path[index] !== '`') {
      const start = index;
      index = path.indexOf('.', index);
      if (index >= 0) {
        steps.push(path.slice(start, index));
        index += 1;
      } else {
        steps.push(path.slice(start));
      }
      continue;
    }
    const backtickAt = index;
    index += 1;
    let field = '';
    let start = index;
    for (;;) {
      index = path.indexOf('`', index);
      if (index === -1) incomplete(path, backtickAt);
      const escaped = path[index - 1] === '\\';
      if (index >= path.length - 1) {
        if (escaped) incomplete(path, backtickAt);
        steps.push(field + path.slice(start, index));
        index += 1;
        break;
      }
      if (path[index + 1] !== '.') {
        index += 1;
        continue;
      }
      if (escaped) {
        field += `${path.slice(start, index - 1)}\``;
        index += 1;
        start = index;
        continue;
      }
      steps.push(field + path.slice(start, index));
      index += 2;
      break;
    }
  }
  if (path.endsWith('.')) steps.push('');
  return steps;
}

/** The steps of a path under the syntax version configured. */
export function fieldPathOf(path: string, version: string | undefined): string[] {
  return (version ?? 'V1').toUpperCase() === 'V2' ? stepsV2(path) : [path];
}

/** The field a path reaches in a schema; undefined when it reaches none. */
export function fieldAt(schema: ConnectSchema, steps: string[]): ConnectField | undefined {
  let current: ConnectSchema = schema;
  for (const step of steps.slice(0, -1)) {
    const found = fieldsOf(current).find((each) => each.field === step);
    if (!found) return undefined;
    current = found;
  }
  return fieldsOf(current).find((each) => each.field === steps[steps.length - 1]);
}

/** The value a path reaches in a struct; null when a step is missing or null. */
export function structValueAt(
  struct: Record<string, unknown>,
  schema: ConnectSchema,
  steps: string[],
  replaceNullWithDefault: boolean,
): unknown {
  let current: Record<string, unknown> = struct;
  let currentSchema = schema;
  for (const step of steps.slice(0, -1)) {
    const found = fieldsOf(currentSchema).find((each) => each.field === step);
    if (!found) return null;
    const next = current[step];
    if (!isPlainObject(next)) return null;
    current = next;
    currentSchema = found;
  }
  const last = fieldsOf(currentSchema).find((each) => each.field === steps[steps.length - 1]);
  return last ? fieldValue(current, last, replaceNullWithDefault) : null;
}

/** The value a path reaches in a map; null when a step is missing. */
export function mapValueAt(map: Record<string, unknown>, steps: string[]): unknown {
  let current = map;
  for (const step of steps.slice(0, -1)) {
    const next = current[step];
    if (next === null || next === undefined) return null;
    current = requireMap(next, 'nested field access');
  }
  return current[steps[steps.length - 1]!] ?? null;
}
