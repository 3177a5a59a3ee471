/**
 * The plan of a stack: what applying its template would create, update, replace and delete,
 * given what the last apply left. Terraform-like: a field that cannot change in place replaces
 * the entry; values that only exist after apply, and anything holding a secret, are masked.
 */
import { createHash } from 'node:crypto';
import { isJsonObject, jsonEqual } from '../../control-plane/json-value.js';
import {
  STACK_SECTIONS,
  childPath,
  referenceTokensOf,
  type Reference,
  type StackSection,
} from './references.js';
import {
  DEFAULT_SECRET_LENGTH,
  applySteps,
  destroySteps,
  memoryMbOf,
  storageGbOf,
  type StackTemplate,
  type TemplateResource,
} from './template.js';

/** What the last apply left, as the controller records it (one per applied entry). */
export interface AppliedEntry {
  section: StackSection;
  name: string;
  /** The template entry as it was applied (references as written, not resolved). */
  config: unknown;
}

export interface PlanChange {
  type: 'create' | 'update' | 'replace' | 'delete';
  /** `<section>.<name>` */
  resource: string;
  /** Dotted field paths, e.g. `properties.storage_size`, `command[1]`. */
  details: Record<string, { old: unknown; new: unknown }>;
}

export interface StackPlan {
  changes: PlanChange[];
  summary: { create: number; update: number; replace: number; delete: number; unchanged: number };
  /** `sha256:<hex>` over a canonical (sorted-keys) JSON of the template and the applied configs. */
  plan_digest: string;
}

export const KNOWN_AFTER_APPLY = '(known after apply)';
export const SENSITIVE = '(sensitive)';

type Entries = Map<string, { section: StackSection; name: string; config: unknown }>;

function templateEntries(template: StackTemplate): Entries {
  const entries: Entries = new Map();
  for (const section of STACK_SECTIONS) {
    for (const [name, config] of Object.entries(template[section] ?? {})) {
      entries.set(`${section}.${name}`, { section, name, config });
    }
  }
  return entries;
}

function entriesAsTemplate(
  entries: Iterable<{ section: StackSection; name: string; config: unknown }>,
): StackTemplate {
  const template: Record<string, Record<string, unknown>> = {};
  for (const { section, name, config } of entries) (template[section] ??= {})[name] = config;
  return template as StackTemplate;
}

/** The leaf fields that differ between two configs; a side that lacks the field reads `null`. */
function differences(
  old: unknown,
  next: unknown,
  path = '',
  out: PlanChange['details'] = {},
): PlanChange['details'] {
  if (jsonEqual(old, next)) return out;
  if ((isJsonObject(old) || old === undefined) && (isJsonObject(next) || next === undefined)) {
    const before = old ?? {};
    const after = next ?? {};
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      differences(before[key], after[key], childPath(path, key), out);
    }
    return out;
  }
  if ((Array.isArray(old) || old === undefined) && (Array.isArray(next) || next === undefined)) {
    const before: unknown[] = old ?? [];
    const after: unknown[] = next ?? [];
    for (let index = 0; index < Math.max(before.length, after.length); index++) {
      differences(before[index], after[index], childPath(path, index), out);
    }
    return out;
  }
  out[path] = { old: old ?? null, new: next ?? null };
  return out;
}

function resourceReplaced(old: TemplateResource, next: TemplateResource): boolean {
  const engine = (resource: TemplateResource): unknown =>
    resource.properties?.engine ?? (resource.type === 'cache' ? 'redis' : undefined);
  if (old.type !== next.type || engine(old) !== engine(next)) return true;
  if (old.properties?.version !== next.properties?.version) return true;
  const shrinks = (size: (resource: TemplateResource) => number | undefined): boolean =>
    (size(next) ?? 0) < (size(old) ?? 0);
  return next.type === 'cache' ? shrinks(memoryMbOf) : shrinks(storageGbOf);
}

/**
 * Whether a change of an entry cannot be made in place, so the entry is replaced: the plan shows
 * it and the apply does it by the same rule.
 */
export function entryReplaced(section: StackSection, old: unknown, next: unknown): boolean {
  switch (section) {
    case 'resources':
      return resourceReplaced(old as TemplateResource, next as TemplateResource);
    case 'secrets': {
      // A new generator or length generates a new value; writing out a default changes nothing.
      const effective = (secret: unknown): unknown[] => {
        const { generator_type, length } = (secret ?? {}) as { generator_type?: unknown; length?: unknown };
        return [generator_type, length ?? DEFAULT_SECRET_LENGTH];
      };
      return !jsonEqual(effective(old), effective(next));
    }
    case 'bootstrap':
      return true; // the job runs again
    default:
      return false;
  }
}

/** A reference that reads a secret: a generated secret, or a connection string (it holds a password). */
function readsSecret(reference: Reference): boolean {
  return reference.section === 'secrets' || reference.attribute === 'connection_string';
}

function referencesOf(value: unknown): Reference[] {
  return typeof value === 'string'
    ? referenceTokensOf(value).flatMap(({ reference }) => (reference ? [reference] : []))
    : [];
}

function masked(value: unknown): unknown {
  return referencesOf(value).some(readsSecret) ? SENSITIVE : value;
}

/** The details as shown: secret-bearing strings masked, values from entries (re)created in this plan unknown. */
function shownDetails(details: PlanChange['details'], pending: ReadonlySet<string>): PlanChange['details'] {
  return Object.fromEntries(
    Object.entries(details).map(([path, { old, new: next }]) => {
      const unknown = referencesOf(next).some(({ section, name }) => pending.has(`${section}.${name}`));
      const shownNew = masked(next) === SENSITIVE ? SENSITIVE : unknown ? KNOWN_AFTER_APPLY : next;
      return [path, { old: masked(old), new: shownNew }];
    }),
  );
}

/** JSON with every object's keys sorted, so equal values give equal text whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (isJsonObject(value)) {
    const fields = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value);
}

function planDigest(template: StackTemplate, applied: AppliedEntry[]): string {
  const configs = [...applied]
    .sort((a, b) => (`${a.section}.${a.name}` < `${b.section}.${b.name}` ? -1 : 1))
    .map(({ section, name, config }) => ({ section, name, config }));
  const text = canonicalJson({ template, applied: configs });
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** Keys in the order changes are listed: apply order, outputs last by name. */
function applyOrder(template: StackTemplate): string[] {
  const outputs = Object.keys(template.outputs ?? {}).sort();
  return [...applySteps(template).map(({ key }) => key), ...outputs.map((name) => `outputs.${name}`)];
}

/**
 * What applying `template` would change, given what the last apply left. Changes come in apply
 * order (creates, updates, replaces), then deletes in destroy order.
 */
export function planStack(template: StackTemplate, applied: AppliedEntry[]): StackPlan {
  const desired = templateEntries(template);
  const current: Entries = new Map(applied.map((entry) => [`${entry.section}.${entry.name}`, entry]));

  const kinds = new Map<string, PlanChange['type']>();
  let unchanged = 0;
  for (const [key, { section, config }] of desired) {
    const before = current.get(key);
    if (!before) kinds.set(key, 'create');
    else if (jsonEqual(before.config, config)) unchanged++;
    else kinds.set(key, entryReplaced(section, before.config, config) ? 'replace' : 'update');
  }
  const pending = new Set([...kinds].filter(([, type]) => type !== 'update').map(([key]) => key));

  const changes: PlanChange[] = [];
  for (const key of applyOrder(template)) {
    const type = kinds.get(key);
    if (!type) continue;
    const details = differences(current.get(key)?.config, desired.get(key)!.config);
    changes.push({ type, resource: key, details: shownDetails(details, pending) });
  }
  const removed = [...current.values()].filter((entry) => !desired.has(`${entry.section}.${entry.name}`));
  const removedOutputs = removed
    .filter(({ section }) => section === 'outputs')
    .map(({ name }) => `outputs.${name}`);
  const destroyOrder = [
    ...removedOutputs.sort().reverse(),
    ...destroySteps(entriesAsTemplate(removed)).map(({ key }) => key),
  ];
  for (const key of destroyOrder) {
    const details = differences(current.get(key)!.config, undefined);
    changes.push({ type: 'delete', resource: key, details: shownDetails(details, pending) });
  }

  const count = (type: PlanChange['type']): number => changes.filter((change) => change.type === type).length;
  return {
    changes,
    summary: {
      create: count('create'),
      update: count('update'),
      replace: count('replace'),
      delete: count('delete'),
      unchanged,
    },
    plan_digest: planDigest(template, applied),
  };
}
