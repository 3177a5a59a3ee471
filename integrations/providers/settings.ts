/**
 * How a provider declares what an integration of its type takes: configuration keys with their
 * checks (refused with 422) and credential keys (refused with 400). The checks are pure, so the
 * facade answers before anything is stored or any provider is asked.
 */

/** Why a value cannot be the field's, or undefined when it can. */
export type ValueCheck = (value: unknown, field: string) => string | undefined;

export interface ProviderSettings {
  /** Each configuration key the type takes, with its check. */
  configuration: Readonly<Record<string, ValueCheck>>;
  /** The configuration keys it requires. */
  requiredConfiguration: readonly string[];
  credentials: {
    required: readonly string[];
    optional: readonly string[];
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

export const text: ValueCheck = (value, field) =>
  typeof value === 'string' && value.trim() !== '' ? undefined : `${field} must be a non-empty string`;
