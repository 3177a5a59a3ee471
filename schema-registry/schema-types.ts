/** The vocabulary of the schema registry: schema types, compatibility levels, modes. */

export const SCHEMA_TYPES = ['AVRO', 'JSON', 'PROTOBUF'] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];

export const COMPATIBILITY_LEVELS = [
  'NONE',
  'BACKWARD',
  'BACKWARD_TRANSITIVE',
  'FORWARD',
  'FORWARD_TRANSITIVE',
  'FULL',
  'FULL_TRANSITIVE',
] as const;
export type CompatibilityLevel = (typeof COMPATIBILITY_LEVELS)[number];
export const DEFAULT_COMPATIBILITY: CompatibilityLevel = 'BACKWARD';

export const MODES = ['READWRITE', 'READONLY', 'IMPORT'] as const;
export type Mode = (typeof MODES)[number];
export const DEFAULT_MODE: Mode = 'READWRITE';

/** A schema another one builds on: `name` is how the referring schema names it. */
export interface SchemaReference {
  name: string;
  subject: string;
  version: number;
}

/** A schema's content, with the texts of the schemas it references (theirs first, in order). */
export interface SchemaContent {
  schemaType: SchemaType;
  schema: string;
  references: readonly SchemaReference[];
  /** The referenced schemas' texts, depth first, each before the schemas that reference it. */
  resolvedReferences: readonly ResolvedReference[];
}

export interface ResolvedReference {
  name: string;
  schema: string;
}

export function isSchemaType(value: unknown): value is SchemaType {
  return (SCHEMA_TYPES as readonly unknown[]).includes(value);
}

/** Levels are accepted in any case, as Confluent accepts them. */
export function compatibilityLevelOf(value: unknown): CompatibilityLevel | undefined {
  if (typeof value !== 'string') return undefined;
  const level = value.toUpperCase();
  return (COMPATIBILITY_LEVELS as readonly string[]).includes(level)
    ? (level as CompatibilityLevel)
    : undefined;
}

export function modeOf(value: unknown): Mode | undefined {
  if (typeof value !== 'string') return undefined;
  const mode = value.toUpperCase();
  return (MODES as readonly string[]).includes(mode) ? (mode as Mode) : undefined;
}
