/**
 * The errors of the schema registry, with Confluent's codes: the HTTP status is the code's first
 * three digits (`40401` → 404), except the incompatible register, whose code is `409` itself.
 */
export class SchemaRegistryError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'SchemaRegistryError';
  }

  get status(): number {
    return this.errorCode < 1000 ? this.errorCode : Math.floor(this.errorCode / 100);
  }
}

export const subjectNotFound = (subject: string) =>
  new SchemaRegistryError(40401, `Subject '${subject}' not found.`);
export const versionNotFound = (subject: string, version: number | string) =>
  new SchemaRegistryError(40402, `Version ${version} not found for subject '${subject}'.`);
export const schemaNotFound = (detail = 'Schema not found') => new SchemaRegistryError(40403, detail);
export const subjectNotSoftDeleted = (subject: string) =>
  new SchemaRegistryError(
    40405,
    `Subject '${subject}' was not deleted first before being permanently deleted`,
  );
export const versionAlreadySoftDeleted = (subject: string, version: number) =>
  new SchemaRegistryError(
    40406,
    `Subject '${subject}' Version ${version} was soft deleted. Set permanent=true to delete permanently`,
  );
export const versionNotSoftDeleted = (subject: string, version: number) =>
  new SchemaRegistryError(
    40407,
    `Subject '${subject}' Version ${version} was not deleted first before being permanently deleted`,
  );
export const subjectCompatibilityNotFound = (subject: string) =>
  new SchemaRegistryError(40408, `Subject '${subject}' does not have subject-level compatibility configured`);
export const subjectModeNotFound = (subject: string) =>
  new SchemaRegistryError(40409, `Subject '${subject}' does not have subject-level mode configured`);
export const incompatibleSchema = (reasons: readonly string[]) =>
  new SchemaRegistryError(
    409,
    `Schema being registered is incompatible with an earlier schema for subject: ${reasons.join('; ')}`,
  );
export const invalidSchema = (detail: string) => new SchemaRegistryError(42201, `Invalid schema: ${detail}`);
export const invalidVersion = (version: string) =>
  new SchemaRegistryError(
    42202,
    `The specified version '${version}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`,
  );
export const invalidCompatibilityLevel = (level: unknown) =>
  new SchemaRegistryError(
    42203,
    `Invalid compatibility level ${JSON.stringify(level)}. Valid values are none, backward, forward, full, backward_transitive, forward_transitive, and full_transitive`,
  );
export const invalidMode = (mode: unknown) =>
  new SchemaRegistryError(
    42204,
    `Invalid mode ${JSON.stringify(mode)}. Valid values are READWRITE, READONLY and IMPORT`,
  );
export const operationNotPermitted = (detail: string) => new SchemaRegistryError(42205, detail);
export const referenceExists = (detail: string) => new SchemaRegistryError(42206, detail);
