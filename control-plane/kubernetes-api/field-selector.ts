import type { KubeObject } from '../types.js';
import { badRequest } from './kube-status.js';

/** The fields a custom resource can be selected by, as on a kube-apiserver. */
const SELECTABLE = ['metadata.name', 'metadata.namespace'] as const;
type SelectableField = (typeof SELECTABLE)[number];

interface Requirement {
  field: SelectableField;
  equals: boolean;
  value: string;
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

function parseTerm(term: string): Requirement {
  const match = /^([^!=]+?)\s*(==|=|!=)\s*(.*)$/.exec(term.trim());
  if (!match) throw badRequest(`invalid selector: '${term}'; can't understand '${term}'`);
  const [, field = '', operator, value = ''] = match;
  if (!(SELECTABLE as readonly string[]).includes(field)) {
    throw badRequest(`field label not supported: ${field}`);
  }
  return { field: field as SelectableField, equals: operator !== '!=', value };
}

function fieldValue(object: KubeObject, field: SelectableField): string {
  return (field === 'metadata.name' ? object.metadata.name : object.metadata.namespace) ?? '';
}

/**
 * Parses `metadata.name=a,metadata.namespace!=b` (`=`, `==`, `!=`, backslash escapes). Any other
 * field is a 400, as a kube-apiserver answers for custom resources.
 */
export function parseFieldSelector(selector: string | undefined): FieldSelector {
  const terms = selector === undefined || selector.trim() === '' ? [] : splitUnescaped(selector, ',');
  const requirements = terms.map(parseTerm);
  const pinned = requirements.find(
    (requirement) => requirement.field === 'metadata.namespace' && requirement.equals,
  );
  return {
    namespace: pinned?.value,
    matches: (object) =>
      requirements.every(
        (requirement) => (fieldValue(object, requirement.field) === requirement.value) === requirement.equals,
      ),
  };
}
