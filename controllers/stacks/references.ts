/**
 * References between the entries of a stack template: `${<section>.<name>.<attribute>}` inside
 * any string. Finding them, walking the strings they sit in, and substituting their values at
 * apply time. `$${` writes a literal `${` (for shell variables in a job's command).
 */
import { isJsonObject } from '../../control-plane/json-value.js';

export type StackSection = 'resources' | 'secrets' | 'bootstrap' | 'services' | 'outputs';

/** The sections in the order their entries are applied; outputs come last and are never applied. */
export const STACK_SECTIONS: readonly StackSection[] = [
  'resources',
  'secrets',
  'bootstrap',
  'services',
  'outputs',
];

export interface Reference {
  raw: string;
  section: StackSection;
  name: string;
  attribute: string;
}

/** `$${…}` (an escaped literal), `${…}`, or an unterminated `${…` running to the end of the string. */
const REFERENCE_TOKEN = /\$(\$?)\{([^}]*)(\}?)/g;
const REFERENCE_BODY = /^([a-z]+)\.([A-Za-z0-9_-]+)(?:\.([A-Za-z_][A-Za-z0-9_]*))?$/;

/** The attribute a secret is read by when a reference names none (`${secrets.<name>}`). */
const SECRET_VALUE = 'value';

/** A `${…}` token as written, parsed; undefined when it is not `${section.name.attribute}`. */
export function parseReference(raw: string): Reference | undefined {
  const body = /^\$\{(.*)\}$/.exec(raw)?.[1];
  const match = body === undefined ? null : REFERENCE_BODY.exec(body);
  if (!match) return undefined;
  const [, section, name, attribute] = match as unknown as [string, string, string, string | undefined];
  if (!STACK_SECTIONS.includes(section as StackSection)) return undefined;
  if (attribute === undefined && section !== 'secrets') return undefined;
  return { raw, section: section as StackSection, name, attribute: attribute ?? SECRET_VALUE };
}

/** One `${…}` inside a string: `reference` is undefined when it is malformed. */
export interface ReferenceToken {
  raw: string;
  reference: Reference | undefined;
}

/** Every `${…}` token of one string, escaped `$${…}` left out. */
export function referenceTokensOf(text: string): ReferenceToken[] {
  const tokens: ReferenceToken[] = [];
  for (const match of text.matchAll(REFERENCE_TOKEN)) {
    if (match[1] === '$') continue;
    tokens.push({ raw: match[0], reference: match[3] === '}' ? parseReference(match[0]) : undefined });
  }
  return tokens;
}

/** `parent.key`, or `parent["key"]` for a key that would not read as one segment; `parent[index]`. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) return `${parent}[${JSON.stringify(key)}]`;
  return parent ? `${parent}.${key}` : key;
}

export interface Leaf {
  path: string;
  value: unknown;
}

/** The scalar leaves of a JSON value, depth first in key order, each with its path under `path`. */
export function leavesOf(value: unknown, path: string): Leaf[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => leavesOf(item, childPath(path, index)));
  if (isJsonObject(value)) {
    return Object.entries(value).flatMap(([key, item]) =>
      item === undefined ? [] : leavesOf(item, childPath(path, key)),
    );
  }
  return [{ path, value }];
}

/** All references inside a value (strings at any depth of objects/arrays), in order of appearance. */
export function referencesIn(value: unknown): Reference[] {
  return leavesOf(value, '').flatMap(({ value: leaf }) =>
    typeof leaf === 'string'
      ? referenceTokensOf(leaf).flatMap(({ reference }) => (reference ? [reference] : []))
      : [],
  );
}

/** What a reference resolves to at apply time; undefined: not known (yet). */
export type ReferenceLookup = (reference: Reference) => { value: string; sensitive: boolean } | undefined;

export interface Resolution {
  value: unknown;
  sensitive: boolean;
  unresolved: Reference[];
}

/**
 * Replaces every `${…}` in strings (deeply) with its value and every `$${` with `${`; a string that
 * is exactly one reference becomes that value's string. `sensitive`: any substituted value was
 * sensitive. Unresolved and malformed references are left as written; the unresolved ones are
 * listed once each, in order of appearance. Does not mutate its input.
 */
export function resolveReferences(value: unknown, lookup: ReferenceLookup): Resolution {
  let sensitive = false;
  const unresolved = new Map<string, Reference>();
  const resolveString = (text: string): string =>
    text.replace(REFERENCE_TOKEN, (raw: string, escape: string, _body: string, close: string) => {
      if (escape === '$') return raw.slice(1);
      const reference = close === '}' ? parseReference(raw) : undefined;
      if (!reference) return raw;
      const found = lookup(reference);
      if (!found) {
        if (!unresolved.has(raw)) unresolved.set(raw, reference);
        return raw;
      }
      sensitive ||= found.sensitive;
      return found.value;
    });
  const resolve = (item: unknown): unknown => {
    if (typeof item === 'string') return resolveString(item);
    if (Array.isArray(item)) return item.map(resolve);
    if (isJsonObject(item))
      return Object.fromEntries(Object.entries(item).map(([key, v]) => [key, resolve(v)]));
    return item;
  };
  const resolved = resolve(value);
  return { value: resolved, sensitive, unresolved: [...unresolved.values()] };
}
