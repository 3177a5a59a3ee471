export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

type JsonScalar = string | number | boolean | null;

/**
 * The JSON Schema 2020-12 keywords route declarations use. The same object is compiled by ajv and
 * copied into the OpenAPI 3.1 document (whose schema dialect is 2020-12), so a declaration is
 * written once. Schemas are self-contained: no `$ref`, so every copy stands on its own.
 */
export interface JsonSchema {
  type?: JsonType | readonly JsonType[];
  title?: string;
  description?: string;
  properties?: Readonly<Record<string, JsonSchema>>;
  required?: readonly string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  minProperties?: number;
  maxProperties?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  enum?: readonly JsonScalar[];
  const?: JsonScalar;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  default?: unknown;
  examples?: readonly unknown[];
  oneOf?: readonly JsonSchema[];
  anyOf?: readonly JsonSchema[];
  allOf?: readonly JsonSchema[];
  not?: JsonSchema;
  /**
   * What this value may be is a rule of the domain (a tier, an engine, a region, a limit), not
   * the request's shape: breaking its `enum`, bounds or `pattern` is a 422, while a wrong type is
   * still a 400. The OpenAPI document carries it as an extension.
   */
  'x-domain-rule'?: true;
}

/** Path parameters and query strings are always objects of named values. */
export interface ObjectSchema extends JsonSchema {
  type: 'object';
  properties: Readonly<Record<string, JsonSchema>>;
}
