import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { cause } from './store-errors.js';
import { isJsonObject, type JsonObject } from './json-value.js';
import type { StoreErrorCause } from './types.js';

const PRESERVE = 'x-kubernetes-preserve-unknown-fields';
const EMBEDDED = 'x-kubernetes-embedded-resource';
/** Root fields the apiserver owns: never pruned by a CRD schema (metadata has its own rules). */
const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * A kind's structural schema, ready to use: pruning of undeclared fields and validation, as a
 * kube-apiserver does for a custom resource.
 */
export interface SchemaCheck {
  /** Removes every field the schema does not declare, in place; answers their paths (`spec.foo`). */
  prune(object: JsonObject): string[];
  /** Applies schema defaults in place and answers one cause per violated rule, naming its field. */
  validate(object: JsonObject): StoreErrorCause[];
}

function pruneValue(value: unknown, schema: JsonObject, path: string, removed: string[]): void {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (isJsonObject(items))
      value.forEach((item, index) => pruneValue(item, items, `${path}[${index}]`, removed));
    return;
  }
  if (!isJsonObject(value)) return;
  const properties = isJsonObject(schema.properties) ? schema.properties : undefined;
  const additional = schema.additionalProperties;
  const preserve = schema[PRESERVE] === true || additional === true;
  const embedded = schema[EMBEDDED] === true;
  for (const key of Object.keys(value)) {
    const field = path ? `${path}.${key}` : key;
    const declared = properties?.[key];
    if (isJsonObject(declared)) pruneValue(value[key], declared, field, removed);
    else if (isJsonObject(additional)) pruneValue(value[key], additional, field, removed);
    else if (!preserve && !(embedded && ROOT_FIELDS.has(key))) {
      delete value[key];
      removed.push(field);
    }
  }
}

/** `/spec/items/0/name` of `object` as the apiserver writes it: `spec.items[0].name`. */
function fieldPath(pointer: string, object: unknown): string {
  let path = '';
  let current: unknown = object;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) {
      path += `[${segment}]`;
      current = current[Number(segment)];
    } else {
      path += path ? `.${segment}` : segment;
      current = isJsonObject(current) ? current[segment] : undefined;
    }
  }
  return path;
}

function valueAt(pointer: string, object: unknown): unknown {
  let current: unknown = object;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) current = current[Number(segment)];
    else current = isJsonObject(current) ? current[segment] : undefined;
  }
  return current;
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function describeRule(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'minimum':
      return `should be greater than or equal to ${String(params.limit)}`;
    case 'maximum':
      return `should be less than or equal to ${String(params.limit)}`;
    case 'exclusiveMinimum':
      return `should be greater than ${String(params.limit)}`;
    case 'exclusiveMaximum':
      return `should be less than ${String(params.limit)}`;
    case 'minLength':
      return `should be at least ${String(params.limit)} chars long`;
    case 'maxLength':
      return `may not be longer than ${String(params.limit)}`;
    case 'minItems':
      return `should have at least ${String(params.limit)} items`;
    case 'maxItems':
      return `must have at most ${String(params.limit)} items`;
    case 'pattern':
      return `should match '${String(params.pattern)}'`;
    case 'format':
      return `must be of type ${String(params.format)}`;
    default:
      return error.message ?? `violates ${error.keyword}`;
  }
}

function toCause(error: ErrorObject, object: JsonObject): StoreErrorCause {
  const field = fieldPath(error.instancePath, object) || '<root>';
  const params = error.params as Record<string, unknown>;
  const value = valueAt(error.instancePath, object);
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      return cause.required(field === '<root>' ? missing : `${field}.${missing}`);
    }
    case 'enum':
      return cause.notSupported(
        field,
        value,
        Array.isArray(params.allowedValues) ? params.allowedValues : [],
      );
    case 'type':
      return cause.invalid(
        field,
        jsonTypeOf(value),
        `${field} in body must be of type ${String(params.type)}: "${jsonTypeOf(value)}"`,
      );
    default:
      return cause.invalid(field, value, `${field} in body ${describeRule(error)}`);
  }
}

let sharedAjv: Ajv | undefined;

/**
 * One instance for every kind: each instance compiles the JSON Schema meta-schema before its first
 * schema, which cost more than the kinds' own schemas did. Schemas carry no `$id`, so they never
 * collide in it.
 */
function kindAjv(): Ajv {
  if (!sharedAjv) {
    // OpenAPI keywords (nullable, example, x-kubernetes-*) are not JSON Schema: strict mode would refuse them.
    sharedAjv = new Ajv({ allErrors: true, strict: false, logger: false, useDefaults: true });
    ajvFormats.default(sharedAjv);
  }
  return sharedAjv;
}

/** Compiles a CRD's `openAPIV3Schema` for one kind, on its first use: most kinds are never written. */
export function compileKindSchema(schema: JsonObject): SchemaCheck {
  let compiled: ValidateFunction | undefined;
  const validator = (object: JsonObject) => (compiled ??= kindAjv().compile(schema))(object);
  const errorsOf = () => compiled?.errors ?? [];
  return {
    prune(object) {
      const removed: string[] = [];
      const properties = isJsonObject(schema.properties) ? schema.properties : {};
      const preserve = schema[PRESERVE] === true;
      for (const key of Object.keys(object)) {
        if (ROOT_FIELDS.has(key)) continue;
        const declared = properties[key];
        if (isJsonObject(declared)) pruneValue(object[key], declared, key, removed);
        else if (!preserve) {
          delete object[key];
          removed.push(key);
        }
      }
      return removed;
    },
    validate(object) {
      if (validator(object)) return [];
      const causes = errorsOf().map((error) => toCause(error, object));
      return causes.filter(
        (entry, index) => causes.findIndex((other) => other.message === entry.message) === index,
      );
    },
  };
}
