/**
 * How a provider declares what an integration of its type takes: configuration keys with their
 * checks (refused with 422) and credential keys (refused with 400). The checks are pure, so the
 * facade answers before anything is stored or any provider is asked.
 */

/** Why a value cannot be the field's, or undefined when it can. */
export type ValueCheck = (value: unknown, field: string) => string | undefined;

/**
 * The JSON Schema of a request field, in the keywords the route declarations use
 * (`apiserver/routing/json-schema.ts`): what ajv checks before a create runs, and what the
 * OpenAPI document shows.
 */
export interface FieldSchema {
  type: 'string' | 'array' | 'object';
  description?: string;
  enum?: readonly string[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  items?: FieldSchema;
  minItems?: number;
  maxItems?: number;
  propertyNames?: { enum: readonly string[] };
  additionalProperties?: FieldSchema;
  /** A value the schema refuses is a broken domain rule (422), not a malformed request (400). */
  'x-domain-rule'?: true;
}

export interface ProviderSettings {
  /** Each configuration key the type takes, with its check. */
  configuration: Readonly<Record<string, ValueCheck>>;
  /** The configuration keys it requires. */
  requiredConfiguration: readonly string[];
  credentials: {
    required: readonly string[];
    optional: readonly string[];
    /** Keys whose value is a URL the platform calls: a create refuses one the outbound rules refuse. */
    outboundUrls?: readonly string[];
    /** A check of the credentials' values beyond being non-empty strings: field and message. */
    check?(credentials: Record<string, unknown>): { field: string; message: string } | undefined;
  };
}

export const stringArray =
  (check: (item: string) => boolean, what: string): ValueCheck =>
  (value, field) => {
    if (!Array.isArray(value)) return `${field} must be an array of ${what}`;
    const bad = value.find((item) => typeof item !== 'string' || !check(item));
    return bad === undefined ? undefined : `${field} has ${JSON.stringify(bad)}, which is not ${what}`;
  };

/** A secret the body carries: a token or a key. */
export const SECRET_FIELD: FieldSchema = { type: 'string', minLength: 1, maxLength: 4096 };

/** The strings once each, in their first order. */
export const once = (values: readonly string[]): string[] => [...new Set(values)];

export const text: ValueCheck = (value, field) =>
  typeof value === 'string' && value.trim() !== '' ? undefined : `${field} must be a non-empty string`;
