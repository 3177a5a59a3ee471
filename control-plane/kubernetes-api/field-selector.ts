import type { KubeObject, ResourceType } from '../types.js';
import { badRequest } from './kube-status.js';

type FieldValue = (object: KubeObject) => unknown;

/** The fields every resource can be selected by. */
const METADATA_FIELDS: Record<string, FieldValue> = {
  'metadata.name': (object) => object.metadata.name,
  'metadata.namespace': (object) => object.metadata.namespace,
};

const REFERENCE_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];

function referenceFields(prefix: string): Record<string, FieldValue> {
  return Object.fromEntries(
    REFERENCE_FIELDS.map((field) => [
      `${prefix}.${field}`,
      (object: KubeObject) =>
        (object as unknown as Record<string, Record<string, unknown> | undefined>)[prefix]?.[field],
    ]),
  );
}

const topLevel =
  (field: string): FieldValue =>
  (object) =>
    (object as unknown as Record<string, unknown>)[field];

/** Core `v1` Events, as a kube-apiserver selects them (`kubectl describe` asks by involvedObject). */
const CORE_EVENT_FIELDS: Record<string, FieldValue> = {
  ...METADATA_FIELDS,
  ...referenceFields('involvedObject'),
  reason: topLevel('reason'),
  reportingComponent: topLevel('reportingComponent'),
  source: (object) => (object as unknown as { source?: { component?: string } }).source?.component,
  type: topLevel('type'),
};

/** `events.k8s.io/v1` Events: the same selections under that version's names. */
const EVENTS_V1_FIELDS: Record<string, FieldValue> = {
  ...METADATA_FIELDS,
  ...referenceFields('regarding'),
  reason: topLevel('reason'),
  reportingController: topLevel('reportingController'),
  type: topLevel('type'),
};

/** The fields objects of `type` can be selected by: metadata for custom resources, more for Events. */
function selectableFields(type: ResourceType | undefined): Record<string, FieldValue> {
  if (type?.kind === 'Event' && type.group === '') return CORE_EVENT_FIELDS;
  if (type?.kind === 'Event' && type.group === 'events.k8s.io') return EVENTS_V1_FIELDS;
  return METADATA_FIELDS;
}

interface Requirement {
  field: string;
  value: FieldValue;
  equals: boolean;
  expected: string;
}

/** A parsed field selector: which objects it keeps, and the namespace it pins, if any. */
export interface FieldSelector {
  matches(object: KubeObject): boolean;
  /** The namespace a `metadata.namespace=` term requires: lists can read only that one. */
  namespace: string | undefined;
}

/** Splits on `separator` where it is not escaped by a backslash, and unescapes the parts. */
function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === '\\' && index + 1 < text.length) {
      current += text[index + 1];
      index += 1;
    } else if (char === separator) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}

function parseTerm(term: string, fields: Record<string, FieldValue>): Requirement {
  const match = /^([^!=]+?)\s*(==|=|!=)\s*(.*)$/.exec(term.trim());
  if (!match) throw badRequest(`invalid selector: '${term}'; can't understand '${term}'`);
  const [, field = '', operator, expected = ''] = match;
  const value = Object.hasOwn(fields, field) ? fields[field] : undefined;
  if (value === undefined) throw badRequest(`field label not supported: ${field}`);
  return { field, value, equals: operator !== '!=', expected };
}

function fieldText(value: unknown): string {
  return value === undefined || value === null ? '' : String(value);
}

/**
 * Parses `metadata.name=a,metadata.namespace!=b` (`=`, `==`, `!=`, backslash escapes) for objects
 * of `type`. A field the kind cannot be selected by is a 400, as a kube-apiserver answers.
 */
export function parseFieldSelector(selector: string | undefined, type?: ResourceType): FieldSelector {
  const terms = selector === undefined || selector.trim() === '' ? [] : splitUnescaped(selector, ',');
  const fields = selectableFields(type);
  const requirements = terms.map((term) => parseTerm(term, fields));
  const pinned = requirements.find(
    (requirement) => requirement.field === 'metadata.namespace' && requirement.equals,
  );
  return {
    namespace: pinned?.expected,
    matches: (object) =>
      requirements.every(
        (requirement) =>
          (fieldText(requirement.value(object)) === requirement.expected) === requirement.equals,
      ),
  };
}
