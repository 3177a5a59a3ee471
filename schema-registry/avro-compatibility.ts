/**
 * Avro compatibility through avsc's schema resolution: a reader schema is compatible with a writer
 * schema when avsc can build a resolver from one to the other (`reader.createResolver(writer)`),
 * exactly Avro's resolution rules (promotions, defaults, aliases, union branches). When it cannot,
 * the two schemas are walked side by side to name the field that fails and why.
 */
import avro from 'avsc';
import { invalidSchema } from './schema-registry-error.js';
import type { SchemaContent } from './schema-types.js';

export type AvroSchema = avro.Type;

/** Parses an Avro schema, its references' named types first; throws 42201 when it is not one. */
export function parseAvro(content: SchemaContent): AvroSchema {
  const registry: Record<string, avro.Type> = {};
  try {
    for (const reference of content.resolvedReferences) {
      avro.Type.forSchema(JSON.parse(reference.schema) as avro.Schema, { registry });
    }
    return avro.Type.forSchema(JSON.parse(content.schema) as avro.Schema, { registry });
  } catch (error) {
    throw invalidSchema((error as Error).message);
  }
}

function resolutionError(reader: avro.Type, writer: avro.Type): string | undefined {
  try {
    reader.createResolver(writer);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function fieldsOf(type: avro.Type): avro.types.Field[] | undefined {
  return type instanceof avro.types.RecordType ? type.fields : undefined;
}

function symbolsOf(type: avro.Type): string[] | undefined {
  return type instanceof avro.types.EnumType ? type.symbols : undefined;
}

/** Why `reader` cannot read what `writer` wrote, naming the field; empty when it can. */
export function avroReaderProblems(reader: AvroSchema, writer: AvroSchema): string[] {
  return explain(reader, writer, reader.name ?? reader.typeName);
}

function explain(reader: avro.Type, writer: avro.Type, path: string): string[] {
  const failure = resolutionError(reader, writer);
  if (failure === undefined) return [];
  const readerFields = fieldsOf(reader);
  const writerFields = fieldsOf(writer);
  if (readerFields && writerFields) {
    const problems: string[] = [];
    for (const field of readerFields) {
      const names = [field.name, ...field.aliases];
      const written = writerFields.find((candidate) => names.includes(candidate.name));
      if (!written) {
        if (field.defaultValue() === undefined) {
          problems.push(
            `field '${path}.${field.name}': the reader requires it and has no default, but the writer's data lacks it`,
          );
        }
        continue;
      }
      problems.push(...explain(field.type, written.type, `${path}.${field.name}`));
    }
    if (problems.length > 0) return problems;
  }
  const readerSymbols = symbolsOf(reader);
  const writerSymbols = symbolsOf(writer);
  if (readerSymbols && writerSymbols) {
    const missing = writerSymbols.filter((symbol) => !readerSymbols.includes(symbol));
    if (missing.length > 0) {
      return [
        `enum '${path}': symbols ${missing.join(', ')} were removed and the reader has no default symbol`,
      ];
    }
  }
  if (reader instanceof avro.types.ArrayType && writer instanceof avro.types.ArrayType) {
    const problems = explain(reader.itemsType, writer.itemsType, `${path}[]`);
    if (problems.length > 0) return problems;
  }
  if (reader instanceof avro.types.MapType && writer instanceof avro.types.MapType) {
    const problems = explain(reader.valuesType, writer.valuesType, `${path}{}`);
    if (problems.length > 0) return problems;
  }
  return [`'${path}': ${failure}`];
}
