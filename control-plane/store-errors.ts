import { StoreError, type ResourceType, type StoreErrorCause } from './types.js';

/**
 * The errors the embedded store answers, worded as a kube-apiserver words them so that a message
 * reads the same whichever backend produced it.
 */

/** `widgets.example.dev`: how the apiserver names a resource in messages. */
export function qualifiedResource(type: ResourceType): string {
  return type.group ? `${type.plural}.${type.group}` : type.plural;
}

export function unknownResource(): StoreError {
  return new StoreError('NotFound', 'the server could not find the requested resource');
}

export function notFound(type: ResourceType, name: string): StoreError {
  return new StoreError('NotFound', `${qualifiedResource(type)} "${name}" not found`, {
    kind: type.plural,
    name,
  });
}

export function alreadyExists(type: ResourceType, name: string): StoreError {
  return new StoreError('AlreadyExists', `${qualifiedResource(type)} "${name}" already exists`, {
    kind: type.plural,
    name,
  });
}

export function conflict(type: ResourceType, name: string, reason: string): StoreError {
  return new StoreError(
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(type)} "${name}": ${reason}`,
    {
      kind: type.plural,
      name,
    },
  );
}

export function staleResourceVersion(type: ResourceType, name: string): StoreError {
  return conflict(
    type,
    name,
    'the object has been modified; please apply your changes to the latest version and try again',
  );
}

/** 409 for a precondition (uid or resourceVersion) the stored object does not meet. */
export function preconditionFailed(
  type: ResourceType,
  name: string,
  field: 'UID' | 'ResourceVersion',
  expected: string,
  actual: string | undefined,
): StoreError {
  return conflict(
    type,
    name,
    `Precondition failed: ${field} in precondition: ${expected}, ${field} in object meta: ${actual ?? ''}`,
  );
}

/** 422 listing every cause, e.g. `Widget.example.dev "a" is invalid: spec.size: Invalid value: ...`. */
export function invalid(type: ResourceType, name: string, causes: StoreErrorCause[]): StoreError {
  const kind = type.group ? `${type.kind}.${type.group}` : type.kind;
  const listed = causes.map((cause) => cause.message);
  const summary = listed.length === 1 ? listed[0] : `[${listed.join(', ')}]`;
  return new StoreError('Invalid', `${kind} "${name}" is invalid: ${summary}`, {
    kind: type.kind,
    name,
    causes,
  });
}

export function badRequest(message: string): StoreError {
  return new StoreError('BadRequest', message);
}

export function tooOldResourceVersion(requested: number, oldest: number): StoreError {
  return new StoreError('Expired', `too old resource version: ${requested} (${oldest})`);
}

/** Causes in the shape the apiserver reports field errors. */
export const cause = {
  required: (field: string): StoreErrorCause => ({
    field,
    reason: 'FieldValueRequired',
    message: `${field}: Required value`,
  }),
  invalid: (field: string, value: unknown, detail: string): StoreErrorCause => ({
    field,
    reason: 'FieldValueInvalid',
    message: `${field}: Invalid value: ${JSON.stringify(value) ?? 'null'}: ${detail}`,
  }),
  notSupported: (field: string, value: unknown, supported: unknown[]): StoreErrorCause => ({
    field,
    reason: 'FieldValueNotSupported',
    message: `${field}: Unsupported value: ${JSON.stringify(value) ?? 'null'}: supported values: ${supported
      .map((entry) => JSON.stringify(entry))
      .join(', ')}`,
  }),
  forbidden: (field: string, detail: string): StoreErrorCause => ({
    field,
    reason: 'FieldValueForbidden',
    message: `${field}: Forbidden: ${detail}`,
  }),
  immutable: (field: string, value: unknown): StoreErrorCause => ({
    field,
    reason: 'FieldValueInvalid',
    message: `${field}: Invalid value: ${JSON.stringify(value) ?? 'null'}: field is immutable`,
  }),
};
