import { randomInt } from 'node:crypto';
import { cause } from './store-errors.js';
import {
  dns1123LabelProblem,
  dns1123SubdomainProblem,
  labelValueProblem,
  qualifiedNameProblem,
} from './label-syntax.js';
import { isJsonObject, type JsonObject } from './json-value.js';
import type { StoreErrorCause } from './types.js';

/** The ObjectMeta fields the apiserver knows; anything else under `metadata` is dropped when decoding. */
const KNOWN_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** Fields only the server sets: whatever a client sends in them at create is replaced. */
export const SERVER_FIELDS = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'selfLink',
] as const;

const TOTAL_ANNOTATION_BYTES = 256 * 1024;
/** The suffix alphabet Kubernetes uses for generated names: no vowels, no look-alike characters. */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const GENERATED_SUFFIX_LENGTH = 5;
const MAX_GENERATE_NAME_PREFIX = 58;

/** Removes unknown metadata fields in place; answers their paths (`metadata.foo`). */
export function pruneMetadata(metadata: JsonObject): string[] {
  const removed: string[] = [];
  for (const key of Object.keys(metadata)) {
    if (KNOWN_FIELDS.has(key)) continue;
    delete metadata[key];
    removed.push(`metadata.${key}`);
  }
  return removed;
}

/** A name from `metadata.generateName` plus a random suffix, as the apiserver makes it. */
export function generatedName(prefix: string): string {
  let suffix = '';
  for (let index = 0; index < GENERATED_SUFFIX_LENGTH; index += 1) {
    suffix += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  }
  return prefix.slice(0, MAX_GENERATE_NAME_PREFIX) + suffix;
}

function stringMapCauses(
  field: string,
  value: unknown,
  checkKey: (key: string) => string | undefined,
  checkValue: (value: string) => string | undefined,
): StoreErrorCause[] {
  if (value === undefined) return [];
  if (!isJsonObject(value))
    return [cause.invalid(field, value, 'must be a map of string keys to string values')];
  const causes: StoreErrorCause[] = [];
  for (const [key, entry] of Object.entries(value)) {
    const keyProblem = checkKey(key);
    if (keyProblem) causes.push(cause.invalid(field, key, keyProblem));
    if (typeof entry !== 'string') causes.push(cause.invalid(`${field}.${key}`, entry, 'must be a string'));
    else {
      const valueProblem = checkValue(entry);
      if (valueProblem) causes.push(cause.invalid(field, entry, valueProblem));
    }
  }
  return causes;
}

function annotationCauses(annotations: unknown): StoreErrorCause[] {
  const causes = stringMapCauses(
    'metadata.annotations',
    annotations,
    (key) => qualifiedNameProblem(key.toLowerCase()),
    () => undefined,
  );
  if (isJsonObject(annotations)) {
    const bytes = Object.entries(annotations).reduce(
      (total, [key, value]) => total + key.length + (typeof value === 'string' ? value.length : 0),
      0,
    );
    if (bytes > TOTAL_ANNOTATION_BYTES) {
      causes.push(
        cause.invalid('metadata.annotations', '', `must have at most ${TOTAL_ANNOTATION_BYTES} bytes`),
      );
    }
  }
  return causes;
}

function finalizerCauses(finalizers: unknown): StoreErrorCause[] {
  if (finalizers === undefined) return [];
  if (!Array.isArray(finalizers))
    return [cause.invalid('metadata.finalizers', finalizers, 'must be a list of strings')];
  return finalizers.flatMap((finalizer: unknown, index): StoreErrorCause[] => {
    const field = `metadata.finalizers[${index}]`;
    if (typeof finalizer !== 'string') return [cause.invalid(field, finalizer, 'must be a string')];
    const problem = qualifiedNameProblem(finalizer);
    return problem ? [cause.invalid(field, finalizer, problem)] : [];
  });
}

function ownerReferenceCauses(references: unknown): StoreErrorCause[] {
  if (references === undefined) return [];
  const field = 'metadata.ownerReferences';
  if (!Array.isArray(references))
    return [cause.invalid(field, references, 'must be a list of owner references')];
  const causes: StoreErrorCause[] = [];
  references.forEach((reference: unknown, index) => {
    const at = `${field}[${index}]`;
    if (!isJsonObject(reference)) {
      causes.push(cause.invalid(at, reference, 'must be an owner reference'));
      return;
    }
    for (const key of ['apiVersion', 'kind', 'name', 'uid']) {
      if (typeof reference[key] !== 'string' || reference[key] === '')
        causes.push(cause.required(`${at}.${key}`));
    }
  });
  const controllers = references.filter(
    (reference) => isJsonObject(reference) && reference.controller === true,
  );
  if (controllers.length > 1) {
    causes.push(
      cause.invalid(field, controllers.length, 'Only one reference can have Controller set to true'),
    );
  }
  return causes;
}

/**
 * Everything wrong with an object's metadata, as field causes: the name (a DNS-1123 subdomain),
 * the namespace (required for namespaced kinds), labels, annotations, finalizers and owner
 * references.
 */
export function metadataCauses(metadata: JsonObject, namespaced: boolean): StoreErrorCause[] {
  const causes: StoreErrorCause[] = [];
  const { name, namespace } = metadata;
  if (typeof name !== 'string' || name === '') causes.push(cause.required('metadata.name'));
  else {
    const problem = dns1123SubdomainProblem(name);
    if (problem) causes.push(cause.invalid('metadata.name', name, problem));
  }
  if (namespaced) {
    if (typeof namespace !== 'string' || namespace === '') causes.push(cause.required('metadata.namespace'));
    else {
      const problem = dns1123LabelProblem(namespace);
      if (problem) causes.push(cause.invalid('metadata.namespace', namespace, problem));
    }
  }
  causes.push(
    ...stringMapCauses('metadata.labels', metadata.labels, qualifiedNameProblem, labelValueProblem),
  );
  causes.push(...annotationCauses(metadata.annotations));
  causes.push(...finalizerCauses(metadata.finalizers));
  causes.push(...ownerReferenceCauses(metadata.ownerReferences));
  return causes;
}

/** Kubernetes timestamps have whole seconds: `2024-05-01T10:00:00Z`. */
export function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
