/**
 * Turns the draft-07 JSON schema that ts-json-schema-generator emits into a Kubernetes structural
 * schema (apiextensions.k8s.io/v1): every node has a single type, nothing is referenced, and
 * only keywords a CRD accepts remain. A real apiserver rejects a CRD that breaks these rules, so
 * a type that cannot be expressed fails here, at generation time, with the field's path.
 */

export type JsonSchema = Record<string, unknown>;

export class StructuralSchemaError extends Error {
  constructor(
    readonly at: string,
    problem: string,
  ) {
    super(`${at}: ${problem}`);
    this.name = 'StructuralSchemaError';
  }
}

const PRESERVE = 'x-kubernetes-preserve-unknown-fields';
const INT_OR_STRING = 'x-kubernetes-int-or-string';

/** Keywords copied as they are; everything the generator may emit beyond these is handled or refused. */
const VERBATIM = new Set([
  'title',
  'description',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'default',
  'example',
]);

/** Dropped: meaningless once everything is inlined, or (`additionalProperties: false`) what pruning already does. */
const DROPPED = new Set(['$schema', '$id', '$comment', 'definitions']);

/** The order keys are written in, so the generated YAML reads the same way every time. */
const KEY_ORDER = [
  'description',
  'title',
  'type',
  'format',
  'enum',
  'nullable',
  'default',
  'example',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'properties',
  'required',
  'items',
  'additionalProperties',
  PRESERVE,
  INT_OR_STRING,
];

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function ordered(schema: JsonSchema): JsonSchema {
  const rank = (key: string): number => {
    const index = KEY_ORDER.indexOf(key);
    return index === -1 ? KEY_ORDER.length : index;
  };
  const keys = Object.keys(schema).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return Object.fromEntries(keys.map((key) => [key, schema[key]]));
}

interface Context {
  definitions: JsonSchema;
  /** Definitions being expanded on the current path: meeting one again means a recursive type. */
  expanding: string[];
}

function resolveRef(ref: string, at: string, context: Context): { name: string; target: JsonSchema } {
  const prefix = '#/definitions/';
  if (!ref.startsWith(prefix)) throw new StructuralSchemaError(at, `cannot resolve reference ${ref}`);
  const name = decodeURIComponent(ref.slice(prefix.length));
  const target = context.definitions[name];
  if (!isObject(target)) throw new StructuralSchemaError(at, `reference to unknown definition ${name}`);
  if (context.expanding.includes(name)) {
    throw new StructuralSchemaError(
      at,
      'the type contains itself; a CRD schema cannot describe a recursive type',
    );
  }
  return { name, target };
}

/** The members of a union, with `null` taken out and reported separately. */
function splitNull(members: unknown[], at: string): { nullable: boolean; rest: JsonSchema[] } {
  const rest: JsonSchema[] = [];
  let nullable = false;
  for (const member of members) {
    if (!isObject(member)) throw new StructuralSchemaError(at, 'union member is not a schema');
    if (member.type === 'null') nullable = true;
    else rest.push(member);
  }
  return { nullable, rest };
}

function literalStrings(member: JsonSchema): string[] | undefined {
  if (member.type !== 'string') return undefined;
  if (typeof member.const === 'string') return [member.const];
  if (Array.isArray(member.enum) && member.enum.every((value) => typeof value === 'string')) {
    return member.enum as string[];
  }
  return undefined;
}

/** Collapses a union into one node with a single type, or refuses it. */
function collapseUnion(node: JsonSchema, members: unknown[], at: string, context: Context): JsonSchema {
  const { nullable, rest } = splitNull(members, at);
  const annotations = Object.fromEntries(
    Object.entries(node).filter(([key]) => key !== 'anyOf' && key !== 'oneOf'),
  );
  let collapsed: JsonSchema;
  const literals = rest.map(literalStrings);
  if (rest.length === 1) {
    collapsed = { ...rest[0], ...annotations };
  } else if (rest.length > 1 && literals.every((values) => values !== undefined)) {
    collapsed = { ...annotations, type: 'string', enum: [...new Set(literals.flat())] };
  } else if (isIntOrString(rest.map((member) => member.type))) {
    collapsed = { ...annotations, [INT_OR_STRING]: true };
  } else {
    throw new StructuralSchemaError(
      at,
      'a union of different types cannot be a structural schema; use one type (string literals are fine)',
    );
  }
  const converted = convert(collapsed, at, context);
  return nullable ? ordered({ ...converted, nullable: true }) : converted;
}

function isIntOrString(types: unknown[]): boolean {
  return types.length === 2 && types.includes('integer') && types.includes('string');
}

/** `type: ['string', 'null']` and friends. */
function collapseTypeList(node: JsonSchema, types: unknown[], at: string): JsonSchema {
  const nonNull = types.filter((type) => type !== 'null');
  const nullable = nonNull.length < types.length ? { nullable: true } : {};
  const { type: _type, ...rest } = node;
  if (nonNull.length === 1) return { ...rest, type: nonNull[0], ...nullable };
  if (isIntOrString(nonNull)) return { ...rest, [INT_OR_STRING]: true, ...nullable };
  throw new StructuralSchemaError(
    at,
    `a value of several types (${nonNull.join(', ')}) cannot be structural`,
  );
}

function convertKeyword(key: string, value: unknown, at: string, context: Context, out: JsonSchema): void {
  if (
    VERBATIM.has(key) ||
    key === 'type' ||
    key === 'nullable' ||
    key === PRESERVE ||
    key === INT_OR_STRING
  ) {
    out[key] = value;
  } else if (DROPPED.has(key)) {
    return;
  } else if (key === 'enum') {
    if (!Array.isArray(value)) throw new StructuralSchemaError(at, 'enum is not a list');
    const values = value.filter((item) => item !== null);
    if (values.length < value.length) out.nullable = true;
    out.enum = values;
  } else if (key === 'const') {
    out.enum = [value];
  } else if (key === 'examples') {
    if (Array.isArray(value) && value.length > 0) out.example = value[0];
  } else if (key === 'exclusiveMinimum' || key === 'exclusiveMaximum') {
    // draft-07 carries the bound here; OpenAPI v3.0 carries it in minimum/maximum with a flag.
    out[key === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
    out[key] = true;
  } else if (key === 'required') {
    if (Array.isArray(value) && value.length > 0) out.required = [...value];
  } else if (key === 'properties') {
    if (!isObject(value)) throw new StructuralSchemaError(at, 'properties is not an object');
    out.properties = Object.fromEntries(
      Object.entries(value).map(([name, child]) => [name, convert(child, `${at}.${name}`, context)]),
    );
  } else if (key === 'items') {
    if (!isObject(value))
      throw new StructuralSchemaError(at, 'tuples cannot be structural; use an array of one type');
    out.items = convert(value, `${at}[]`, context);
  } else if (key === 'additionalProperties') {
    if (value === false) return;
    if (value === true || (isObject(value) && Object.keys(value).length === 0)) out[PRESERVE] = true;
    else out.additionalProperties = convert(value, `${at}{}`, context);
  } else {
    throw new StructuralSchemaError(at, `the keyword "${key}" has no place in a CRD schema`);
  }
}

function convert(node: unknown, at: string, context: Context): JsonSchema {
  if (node === true) return { [PRESERVE]: true };
  if (!isObject(node)) throw new StructuralSchemaError(at, 'not a schema');

  if (typeof node.$ref === 'string') {
    const { name, target } = resolveRef(node.$ref, at, context);
    const { $ref: _ref, ...annotations } = node;
    return convert({ ...target, ...annotations }, at, {
      ...context,
      expanding: [...context.expanding, name],
    });
  }
  if (Array.isArray(node.anyOf)) return collapseUnion(node, node.anyOf, at, context);
  if (Array.isArray(node.oneOf)) return collapseUnion(node, node.oneOf, at, context);
  if (Array.isArray(node.type)) return convert(collapseTypeList(node, node.type, at), at, context);

  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) convertKeyword(key, value, at, context, out);

  if (out.properties !== undefined && out.additionalProperties !== undefined) {
    throw new StructuralSchemaError(at, 'an object with both named properties and an index signature');
  }
  const freeForm =
    out.type === 'object' && out.properties === undefined && out.additionalProperties === undefined;
  const untyped = out.type === undefined && out[INT_OR_STRING] === undefined;
  if (freeForm || untyped) out[PRESERVE] = true;
  return ordered(out);
}

/**
 * The structural form of `schema`. `at` names the root in error messages (for example
 * `Widget.spec`), so a refused field reads `Widget.spec.parts[].size: ...`.
 */
export function toStructuralSchema(schema: JsonSchema, at: string): JsonSchema {
  const definitions = isObject(schema.definitions) ? schema.definitions : {};
  return convert(schema, at, { definitions, expanding: [] });
}

/** The object schema with `kind.specEnums` written into its spec's fields (see KindDescriptor). */
export function withSpecEnums(
  schema: JsonSchema,
  specEnums: Record<string, readonly string[]> | undefined,
): JsonSchema {
  if (!specEnums) return schema;
  const properties = schema.properties as Record<string, JsonSchema>;
  const spec = properties.spec!;
  const fields = { ...(spec.properties as Record<string, JsonSchema>) };
  for (const [field, values] of Object.entries(specEnums)) {
    if (!fields[field])
      throw new StructuralSchemaError(`spec.${field}`, 'an enum for a field the spec lacks');
    fields[field] = { ...fields[field], enum: [...values] };
  }
  return { ...schema, properties: { ...properties, spec: { ...spec, properties: fields } } };
}
