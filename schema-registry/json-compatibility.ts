/**
 * JSON Schema compatibility by a fixed rule set. A reader schema is compatible with a writer
 * schema when every document the writer accepts, the reader accepts too; each rule below names a
 * way the reader may refuse such a document, at the path where it happens:
 *
 * 1. type: the reader's types must cover the writer's (`number` covers `integer`; no `type` covers all).
 * 2. required: a property the reader requires must be required by the writer too.
 * 3. closed content model: a reader with `additionalProperties: false` must declare every property
 *    the writer declares (a property removed under a closed model), and may close only a model the
 *    writer closed as well.
 * 4. properties both declare are compared by these rules, recursively; so are `items`,
 *    `additionalProperties` schemas, and each writer branch of `anyOf`/`oneOf` against the reader's.
 *    A property only the reader declares is allowed (Confluent refuses it under an open writer model:
 *    documents of such producers rarely hold undeclared keys, and refusing would forbid the usual
 *    evolution, adding an optional property).
 * 5. enum narrowing: the reader's `enum` (or `const`) must hold every value the writer's allows.
 * 6. bounds tightened: `minimum`, `exclusiveMinimum`, `minLength`, `minItems`, `minProperties`
 *    must not rise (or appear); `maximum`, `exclusiveMaximum`, `maxLength`, `maxItems`,
 *    `maxProperties` must not fall (or appear); `pattern`, `multipleOf` and `format` must not
 *    appear or change.
 * 7. `$ref` and `allOf` must stay as they were (they are compared as written, not resolved).
 */
import { invalidSchema } from './schema-registry-error.js';
import type { SchemaContent } from './schema-types.js';

export type JsonSchema = boolean | JsonSchemaObject;
interface JsonSchemaObject {
  [keyword: string]: unknown;
}

/** Parses a JSON Schema (an object or a boolean); throws 42201 when it is not one. */
export function parseJsonSchema(content: SchemaContent): JsonSchema {
  let parsed: unknown;
  try {
    parsed = JSON.parse(content.schema);
  } catch (error) {
    throw invalidSchema((error as Error).message);
  }
  if (typeof parsed === 'boolean') return parsed;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidSchema('a JSON Schema is an object or a boolean');
  }
  return parsed as JsonSchemaObject;
}

const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;
const FIXED = ['pattern', 'multipleOf', 'format', '$ref', 'allOf'] as const;

/** Why `reader` may refuse a document `writer` accepts, each naming the path and the rule. */
export function jsonReaderProblems(reader: JsonSchema, writer: JsonSchema): string[] {
  return compare(reader, writer, '#');
}

function compare(reader: JsonSchema, writer: JsonSchema, path: string): string[] {
  if (reader === true || writer === false) return [];
  if (reader === false)
    return [`'${path}': the reader accepts nothing (false) where the writer accepts documents`];
  const writerObject: JsonSchemaObject = writer === true ? {} : writer;
  return [
    ...typeProblems(reader, writerObject, path),
    ...objectProblems(reader, writerObject, path),
    ...enumProblems(reader, writerObject, path),
    ...boundProblems(reader, writerObject, path),
    ...branchProblems(reader, writerObject, path),
    ...nested(reader.items, writerObject.items, `${path}/items`),
  ];
}

function nested(reader: unknown, writer: unknown, path: string): string[] {
  if (!isSchema(reader)) return [];
  return compare(reader, isSchema(writer) ? writer : true, path);
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'boolean' || (typeof value === 'object' && value !== null && !Array.isArray(value));
}

function typesOf(schema: JsonSchemaObject): string[] | undefined {
  if (typeof schema.type === 'string') return [schema.type];
  return Array.isArray(schema.type) ? (schema.type as string[]) : undefined;
}

function typeProblems(reader: JsonSchemaObject, writer: JsonSchemaObject, path: string): string[] {
  const readerTypes = typesOf(reader);
  if (!readerTypes) return [];
  const writerTypes = typesOf(writer);
  if (!writerTypes) {
    return [`'${path}': type narrowed from any type to ${readerTypes.join(' | ')}`];
  }
  const uncovered = writerTypes.filter(
    (type) => !readerTypes.includes(type) && !(type === 'integer' && readerTypes.includes('number')),
  );
  return uncovered.length > 0
    ? [`'${path}': type changed from ${writerTypes.join(' | ')} to ${readerTypes.join(' | ')}`]
    : [];
}

function propertiesOf(schema: JsonSchemaObject): Record<string, JsonSchema> {
  return isSchema(schema.properties) && typeof schema.properties === 'object'
    ? (schema.properties as Record<string, JsonSchema>)
    : {};
}

function requiredOf(schema: JsonSchemaObject): string[] {
  return Array.isArray(schema.required) ? (schema.required as string[]) : [];
}

function objectProblems(reader: JsonSchemaObject, writer: JsonSchemaObject, path: string): string[] {
  const problems: string[] = [];
  const readerProperties = propertiesOf(reader);
  const writerProperties = propertiesOf(writer);
  const writerRequired = requiredOf(writer);
  for (const name of requiredOf(reader)) {
    if (!writerRequired.includes(name)) {
      problems.push(`'${path}/properties/${name}': property '${name}' became required`);
    }
  }
  const readerClosed = reader.additionalProperties === false;
  const writerClosed = writer.additionalProperties === false;
  if (readerClosed && !writerClosed) {
    problems.push(`'${path}': the content model was closed (additionalProperties: false)`);
  }
  for (const [name, written] of Object.entries(writerProperties)) {
    const read = readerProperties[name];
    if (read !== undefined) {
      problems.push(...compare(read, written, `${path}/properties/${name}`));
    } else if (readerClosed) {
      problems.push(
        `'${path}/properties/${name}': property '${name}' removed under a closed content model (additionalProperties: false)`,
      );
    } else if (isSchema(reader.additionalProperties)) {
      problems.push(...compare(reader.additionalProperties, written, `${path}/properties/${name}`));
    }
  }
  if (isSchema(reader.additionalProperties) && typeof reader.additionalProperties === 'object') {
    problems.push(
      ...nested(reader.additionalProperties, writer.additionalProperties, `${path}/additionalProperties`),
    );
  }
  return problems;
}

function allowedValues(schema: JsonSchemaObject): unknown[] | undefined {
  if ('const' in schema) return [schema.const];
  return Array.isArray(schema.enum) ? schema.enum : undefined;
}

function enumProblems(reader: JsonSchemaObject, writer: JsonSchemaObject, path: string): string[] {
  const readerValues = allowedValues(reader);
  if (!readerValues) return [];
  const writerValues = allowedValues(writer);
  if (!writerValues) return [`'${path}': enum narrowed from any value to ${JSON.stringify(readerValues)}`];
  const key = (value: unknown) => JSON.stringify(value);
  const removed = writerValues.filter((value) => !readerValues.map(key).includes(key(value)));
  return removed.length > 0 ? [`'${path}': enum narrowed, values ${JSON.stringify(removed)} removed`] : [];
}

function boundProblems(reader: JsonSchemaObject, writer: JsonSchemaObject, path: string): string[] {
  const problems: string[] = [];
  const tightened = (keyword: string, rises: boolean) => {
    const read = reader[keyword];
    if (typeof read !== 'number') return;
    const written = writer[keyword];
    if (typeof written !== 'number' || (rises ? read > written : read < written)) {
      problems.push(
        `'${path}': ${keyword} tightened from ${typeof written === 'number' ? written : 'none'} to ${read}`,
      );
    }
  };
  for (const keyword of LOWER_BOUNDS) tightened(keyword, true);
  for (const keyword of UPPER_BOUNDS) tightened(keyword, false);
  for (const keyword of FIXED) {
    if (keyword in reader && JSON.stringify(reader[keyword]) !== JSON.stringify(writer[keyword])) {
      problems.push(
        `'${path}': ${keyword} changed from ${JSON.stringify(writer[keyword]) ?? 'none'} to ${JSON.stringify(reader[keyword])}`,
      );
    }
  }
  return problems;
}

function branchesOf(schema: JsonSchemaObject): JsonSchema[] | undefined {
  const branches = schema.anyOf ?? schema.oneOf;
  return Array.isArray(branches) ? (branches as JsonSchema[]) : undefined;
}

/** Each branch the writer allows must be read by some reader branch. */
function branchProblems(reader: JsonSchemaObject, writer: JsonSchemaObject, path: string): string[] {
  const readerBranches = branchesOf(reader);
  if (!readerBranches) return [];
  const writerBranches = branchesOf(writer) ?? [writer];
  const problems: string[] = [];
  writerBranches.forEach((branch, index) => {
    if (!readerBranches.some((candidate) => compare(candidate, branch, path).length === 0)) {
      problems.push(
        `'${path}': the writer's alternative ${index + 1} matches no alternative of the reader's anyOf/oneOf`,
      );
    }
  });
  return problems;
}
