/**
 * Whether a schema may follow a subject's earlier versions under a compatibility level. BACKWARD:
 * the new schema reads data written with the earlier one; FORWARD: the earlier one reads data
 * written with the new; FULL: both. The plain levels check the latest version, the _TRANSITIVE
 * ones every earlier version; NONE checks nothing.
 */
import { avroReaderProblems, parseAvro } from './avro-compatibility.js';
import { jsonReaderProblems, parseJsonSchema } from './json-compatibility.js';
import { parseProtobuf, protobufReaderProblems } from './protobuf-compatibility.js';
import { invalidSchema } from './schema-registry-error.js';
import type { CompatibilityLevel, SchemaContent, SchemaType } from './schema-types.js';

interface SchemaChecker<Parsed> {
  parse(content: SchemaContent): Parsed;
  readerProblems(reader: Parsed, writer: Parsed): string[];
}

const CHECKERS: { [T in SchemaType]: SchemaChecker<unknown> } = {
  AVRO: { parse: parseAvro, readerProblems: avroReaderProblems } as SchemaChecker<unknown>,
  JSON: { parse: parseJsonSchema, readerProblems: jsonReaderProblems } as SchemaChecker<unknown>,
  PROTOBUF: { parse: parseProtobuf, readerProblems: protobufReaderProblems } as SchemaChecker<unknown>,
};

/** Throws 42201 when the content is not a valid schema of its type (references resolved). */
export function validateSchema(content: SchemaContent): void {
  CHECKERS[content.schemaType].parse(content);
}

/**
 * The text a schema is stored and served as: compact JSON for Avro and JSON Schema, so that the
 * same schema sent with other whitespace is the same schema; a .proto file as sent, trimmed.
 */
export function canonicalSchemaText(schemaType: SchemaType, schema: string): string {
  if (schemaType === 'PROTOBUF') return schema.trim();
  try {
    return JSON.stringify(JSON.parse(schema));
  } catch (error) {
    throw invalidSchema((error as Error).message);
  }
}

/** An earlier version of the subject, for the check. */
export interface EarlierVersion {
  version: number;
  content: SchemaContent;
}

/**
 * The reasons `candidate` may not follow `earlier` (oldest first) under `level`, each naming the
 * version, the direction, the field and the rule; empty when it may. Earlier versions of another
 * schema type are skipped, as Confluent skips them.
 */
export function compatibilityProblems(
  level: CompatibilityLevel,
  candidate: SchemaContent,
  earlier: readonly EarlierVersion[],
): string[] {
  if (level === 'NONE') return [];
  const checker = CHECKERS[candidate.schemaType];
  const sameType = earlier.filter((previous) => previous.content.schemaType === candidate.schemaType);
  const compared = level.endsWith('_TRANSITIVE') ? sameType : sameType.slice(-1);
  const backward = level.startsWith('BACKWARD') || level.startsWith('FULL');
  const forward = level.startsWith('FORWARD') || level.startsWith('FULL');
  const next = checker.parse(candidate);
  const problems: string[] = [];
  for (const previous of [...compared].reverse()) {
    const old = checker.parse(previous.content);
    if (backward) {
      for (const reason of checker.readerProblems(next, old)) {
        problems.push(
          `${level}: the new schema cannot read data written with version ${previous.version}: ${reason}`,
        );
      }
    }
    if (forward) {
      for (const reason of checker.readerProblems(old, next)) {
        problems.push(
          `${level}: version ${previous.version} cannot read data written with the new schema: ${reason}`,
        );
      }
    }
  }
  return problems;
}
