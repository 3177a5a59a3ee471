/**
 * A stack template: its shape, what its entries mean, and the order they are applied and
 * destroyed in. Pure: the controllers and the routes decide with these, nothing here does I/O.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { isJsonObject } from '../../control-plane/json-value.js';
import { engineNamed } from '../../crds/database-engines/index.js';
import {
  DEFAULT_MEMORY_MB,
  DEFAULT_STORAGE_GB,
  engineNames,
  engineList,
  engineProblem,
  MIN_MEMORY_MB,
  sizedByMemory,
  versionProblem,
} from '../data-services/index.js';
import {
  STACK_SECTIONS,
  childPath,
  leavesOf,
  referenceTokensOf,
  type Reference,
  type StackSection,
} from './references.js';

export type { StackSection } from './references.js';

export type StackPhase = 'infrastructure' | 'secrets' | 'bootstrap' | 'services';
export const STACK_PHASES: readonly StackPhase[] = ['infrastructure', 'secrets', 'bootstrap', 'services'];

/** The sections whose entries are applied, in phase order. */
export type AppliedSection = Exclude<StackSection, 'outputs'>;
const APPLIED_SECTIONS: readonly AppliedSection[] = ['resources', 'secrets', 'bootstrap', 'services'];

const PHASE_OF_SECTION: Record<AppliedSection, StackPhase> = {
  resources: 'infrastructure',
  secrets: 'secrets',
  bootstrap: 'bootstrap',
  services: 'services',
};

/** resources→infrastructure, secrets→secrets, bootstrap→bootstrap, services→services (outputs: none). */
export function phaseOf(section: AppliedSection): StackPhase {
  return PHASE_OF_SECTION[section];
}

export interface TemplateResource {
  type: string;
  properties?: Record<string, unknown>;
  depends_on?: string[];
}
export interface TemplateSecret {
  type: 'generated';
  generator_type: 'password' | 'token';
  length?: number;
}
export interface TemplateJob {
  image: string;
  command: string[];
  secrets?: Record<string, string>;
  env?: Record<string, string>;
  timeout?: string;
  depends_on?: string[];
}
export interface TemplateService {
  type: 'helm';
  depends_on?: string[];
  properties: { chart: string; version?: string; values?: Record<string, unknown>; timeout?: string };
}
export interface TemplateOutput {
  value: string;
  description?: string;
}
export interface StackTemplate {
  version?: string;
  name?: string;
  description?: string;
  resources?: Record<string, TemplateResource>;
  secrets?: Record<string, TemplateSecret>;
  bootstrap?: Record<string, TemplateJob>;
  services?: Record<string, TemplateService>;
  outputs?: Record<string, TemplateOutput>;
}

export const ENTRY_NAME_PATTERN = '^[a-z][a-z0-9_-]{0,62}$';
const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
/** `90` (seconds), `30s`, `5m`, `1h`, or a sum such as `1h30m`. */
const DURATION_PATTERN = '^(?:[0-9]+|(?=[0-9])(?:[0-9]+h)?(?:[0-9]+m)?(?:[0-9]+s)?)$';
const DURATION_REGEX = new RegExp(DURATION_PATTERN);
const STORAGE_SIZE_PATTERN = '^0*[1-9][0-9]*(?:Gi|GB|G)?$';
const MEMORY_PATTERN = '^0*[1-9][0-9]*(?:Mi|MB|M|Gi|GB|G)?$';

export const DEFAULT_SECRET_LENGTH = 32;
/** The longest a bootstrap job or a helm release may take. */
export const MAX_TIMEOUT_MS = 60 * 60 * 1000;

const MEMORY_ENGINES = engineNames().filter(sizedByMemory);

export interface ResourceProperty {
  description: string;
  required: boolean;
  default?: string | number;
  /** The JSON Schema of the property's value. */
  schema: Record<string, unknown>;
}

/** The accepted resource types and their properties, for validation and the README. */
export const RESOURCE_TYPES: Record<
  string,
  { description: string; properties: Record<string, ResourceProperty> }
> = {
  database: {
    description: 'A managed database.',
    properties: {
      engine: {
        description: `The database engine: ${engineList()}.`,
        required: true,
        schema: { type: 'string', minLength: 1 },
      },
      version: {
        description:
          "One of the engine's major versions (GET /v1/databases/versions); the engine's default when absent.",
        required: false,
        schema: { type: ['string', 'number'], minLength: 1 },
      },
      storage_size: {
        description: 'Storage in GB: `10Gi`, `10GB` or `10`.',
        required: false,
        default: DEFAULT_STORAGE_GB,
        schema: {
          type: ['string', 'integer'],
          pattern: STORAGE_SIZE_PATTERN,
          minimum: 1,
          description: 'a size in GB such as 10Gi, 10GB or 10',
        },
      },
    },
  },
  cache: {
    description: 'A managed in-memory cache.',
    properties: {
      engine: {
        description: `The cache engine: ${MEMORY_ENGINES.join(', ')}.`,
        required: false,
        default: 'redis',
        schema: { type: 'string', minLength: 1 },
      },
      version: {
        description: "One of the engine's major versions; the engine's default when absent.",
        required: false,
        schema: { type: ['string', 'number'], minLength: 1 },
      },
      memory: {
        description: 'Memory in MiB: `256Mi`, `256MB`, `1Gi` or `256`.',
        required: false,
        default: DEFAULT_MEMORY_MB,
        schema: {
          type: ['string', 'integer'],
          pattern: MEMORY_PATTERN,
          minimum: 1,
          description: 'a memory size such as 256Mi, 256MB, 1Gi or 256',
        },
      },
    },
  },
};

/** The attributes a reference may read, per section; outputs cannot be referenced. */
export const REFERENCE_ATTRIBUTES: Record<AppliedSection, readonly string[]> = {
  resources: ['id', 'connection_string', 'endpoint', 'host', 'port', 'username', 'database'],
  secrets: ['value'],
  bootstrap: ['status', 'exit_code'],
  services: ['endpoint', 'release', 'namespace', 'status'],
};

function sizeOf(value: unknown, pattern: string, unitFactors: Record<string, number>): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 1 ? value : undefined;
  if (typeof value !== 'string' || !new RegExp(pattern).test(value)) return undefined;
  const [, digits, unit] = /^([0-9]+)(.*)$/.exec(value)!;
  return Number(digits) * (unitFactors[unit!] ?? 1);
}

/** The storage of a database in GB, its default when absent; undefined when unreadable. */
export function storageGbOf(resource: TemplateResource): number | undefined {
  const size = resource.properties?.storage_size;
  if (size === undefined) return DEFAULT_STORAGE_GB;
  return sizeOf(size, STORAGE_SIZE_PATTERN, {});
}

/** The memory of a cache in MiB, its default when absent; undefined when unreadable. */
export function memoryMbOf(resource: TemplateResource): number | undefined {
  const memory = resource.properties?.memory;
  if (memory === undefined) return DEFAULT_MEMORY_MB;
  return sizeOf(memory, MEMORY_PATTERN, { Gi: 1024, GB: 1024, G: 1024 });
}

/** A duration (`90` seconds, `30s`, `5m`, `1h`, `1h30m`) in milliseconds; `fallbackMs` when absent or unreadable. */
export function timeoutMsOf(duration: string | undefined, fallbackMs: number): number {
  if (duration === undefined || !DURATION_REGEX.test(duration)) return fallbackMs;
  if (/^[0-9]+$/.test(duration)) return Number(duration) * 1000;
  const seconds = { h: 3600, m: 60, s: 1 } as const;
  let total = 0;
  for (const [, amount, unit] of duration.matchAll(/([0-9]+)([hms])/g)) {
    total += Number(amount) * seconds[unit as keyof typeof seconds];
  }
  return total * 1000;
}

// ---- shape (JSON Schema) ----

const STRING_LIST = { type: 'array', items: { type: 'string' } };
const DURATION = {
  type: 'string',
  pattern: DURATION_PATTERN,
  description: 'a duration such as 30s, 5m or 1h',
};
const ENV_MAP = {
  type: 'object',
  propertyNames: { pattern: ENV_NAME_PATTERN },
  additionalProperties: { type: 'string' },
};

function sectionSchema(entry: Record<string, unknown>): Record<string, unknown> {
  return { type: 'object', propertyNames: { pattern: ENTRY_NAME_PATTERN }, additionalProperties: entry };
}

/** A resource's properties are checked by its type; an unknown type is a matter of meaning (422). */
const RESOURCE_SCHEMA = {
  type: 'object',
  required: ['type'],
  additionalProperties: false,
  properties: { type: { type: 'string' }, properties: { type: 'object' }, depends_on: STRING_LIST },
  allOf: Object.entries(RESOURCE_TYPES).map(([type, { properties }]) => ({
    if: { required: ['type'], properties: { type: { const: type } } },
    then: {
      properties: {
        properties: {
          type: 'object',
          additionalProperties: false,
          required: Object.entries(properties)
            .filter(([, property]) => property.required)
            .map(([name]) => name),
          properties: Object.fromEntries(
            Object.entries(properties).map(([name, { schema }]) => [name, schema]),
          ),
        },
      },
    },
  })),
};

const TEMPLATE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    version: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    resources: sectionSchema(RESOURCE_SCHEMA),
    secrets: sectionSchema({
      type: 'object',
      required: ['type', 'generator_type'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: ['generated'] },
        generator_type: { type: 'string', enum: ['password', 'token'] },
        length: { type: 'integer', minimum: 8, maximum: 256 },
      },
    }),
    bootstrap: sectionSchema({
      type: 'object',
      required: ['image', 'command'],
      additionalProperties: false,
      properties: {
        image: { type: 'string', minLength: 1 },
        command: { ...STRING_LIST, minItems: 1 },
        secrets: ENV_MAP,
        env: ENV_MAP,
        timeout: DURATION,
        depends_on: STRING_LIST,
      },
    }),
    services: sectionSchema({
      type: 'object',
      required: ['type', 'properties'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: ['helm'] },
        depends_on: STRING_LIST,
        properties: {
          type: 'object',
          required: ['chart'],
          additionalProperties: false,
          properties: {
            chart: { type: 'string', minLength: 1 },
            version: { type: 'string' },
            values: { type: 'object' },
            timeout: DURATION,
          },
        },
      },
    }),
    outputs: sectionSchema({
      type: 'object',
      required: ['value'],
      additionalProperties: false,
      properties: { value: { type: 'string' }, description: { type: 'string' } },
    }),
  },
};

// verbose: a pattern error reads its schema's description ("must be a duration such as 30s").
const validateShape = new Ajv({ allErrors: true, verbose: true, logger: false }).compile(TEMPLATE_SCHEMA);

export interface TemplateProblem {
  /** Where in the request body: e.g. `template.resources.db.properties.engine`, `template.services.api.depends_on[0]`. */
  path: string;
  message: string;
  /** 400 for shape problems (wrong types, unknown keys, missing fields); 422 for meaning (unknown resource type, an engine, version or size the platform does not offer, a reference to a name that does not exist, unknown attribute, a dependency cycle, a reference to a later phase). */
  status: 400 | 422;
}

/** `/services/api/depends_on/0` as `template.services.api.depends_on[0]`. */
function problemPath(pointer: string, template: unknown): string {
  let path = 'template';
  let current: unknown = template;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) {
      path = childPath(path, Number(segment));
      current = current[Number(segment)];
    } else {
      path = childPath(path, segment);
      current = isJsonObject(current) ? current[segment] : undefined;
    }
  }
  return path;
}

function shapeProblem(error: ErrorObject, template: unknown): TemplateProblem | undefined {
  const path = problemPath(error.instancePath, template);
  const params = error.params as Record<string, unknown>;
  const at = (field: string, message: string): TemplateProblem => ({
    path: childPath(path, field),
    message,
    status: 400,
  });
  if (error.propertyName !== undefined) {
    return at(error.propertyName, `must be a name matching ${String(params.pattern)}`);
  }
  switch (error.keyword) {
    case 'if':
    case 'propertyNames':
      return undefined; // reported by the error inside them
    case 'additionalProperties': {
      const field = String(params.additionalProperty);
      return error.instancePath === ''
        ? at(
            field,
            `unknown section; a template has ${['version', 'name', 'description', ...STACK_SECTIONS].join(', ')}`,
          )
        : at(field, 'unknown field');
    }
    case 'required':
      return at(String(params.missingProperty), 'is required');
    case 'enum':
      return {
        path,
        message: `must be one of ${(params.allowedValues as unknown[]).join(', ')}`,
        status: 400,
      };
    case 'type':
      return { path, message: `must be of type ${[params.type].flat().join(' or ')}`, status: 400 };
    case 'pattern': {
      const description = (error.parentSchema as { description?: string } | undefined)?.description;
      return {
        path,
        message: `must be ${description ?? `a string matching ${String(params.pattern)}`}`,
        status: 400,
      };
    }
    case 'minLength':
    case 'minItems':
      return { path, message: 'must not be empty', status: 400 };
    case 'minimum':
      return { path, message: `must be at least ${String(params.limit)}`, status: 400 };
    case 'maximum':
      return { path, message: `must be at most ${String(params.limit)}`, status: 400 };
    default:
      return { path, message: error.message ?? `violates ${error.keyword}`, status: 400 };
  }
}

// ---- meaning ----

function entriesOf(template: unknown, section: StackSection): [string, Record<string, unknown>][] {
  const entries = isJsonObject(template) ? template[section] : undefined;
  if (!isJsonObject(entries)) return [];
  return Object.entries(entries)
    .filter((pair): pair is [string, Record<string, unknown>] => isJsonObject(pair[1]))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function hasEntry(template: unknown, section: StackSection, name: string): boolean {
  const entries = isJsonObject(template) ? template[section] : undefined;
  return isJsonObject(entries) && Object.hasOwn(entries, name) && isJsonObject(entries[name]);
}

function sectionRank(section: StackSection): number {
  return STACK_SECTIONS.indexOf(section);
}

/** One edge from an entry to another (a reference or a `depends_on` item), or why it is not one. */
interface Link {
  path: string;
  /** `<section>.<name>` of the entry it needs, when it names one that may be needed. */
  target?: string;
  problem?: string;
}

function referenceLink(template: unknown, from: StackSection, reference: Reference): Omit<Link, 'path'> {
  const { raw, section, name, attribute } = reference;
  if (section === 'outputs') return { problem: `${raw}: outputs cannot be referenced` };
  if (!hasEntry(template, section, name)) {
    return { problem: `references ${section}.${name}, which the template does not define` };
  }
  const target = `${section}.${name}`;
  if (!REFERENCE_ATTRIBUTES[section].includes(attribute)) {
    return {
      problem: `${raw}: ${target} has no attribute ${attribute}; it has ${REFERENCE_ATTRIBUTES[section].join(', ')}`,
    };
  }
  if (sectionRank(section) > sectionRank(from)) {
    return { problem: `references ${target}, which is applied in a later phase (${phaseOf(section)})` };
  }
  return { target };
}

/** `depends_on` item: `<section>.<name>`, or a bare name looked up in its own section, then the earlier ones in phase order. */
function dependencyLink(template: unknown, from: AppliedSection, item: string): Omit<Link, 'path'> {
  const qualified = /^([a-z]+)\.(.+)$/.exec(item);
  const written = qualified && STACK_SECTIONS.includes(qualified[1] as StackSection);
  const candidates: [StackSection, string][] = written
    ? [[qualified[1] as StackSection, qualified[2]!]]
    : [from, ...APPLIED_SECTIONS.filter((section) => sectionRank(section) < sectionRank(from))].map(
        (section) => [section, item] as [StackSection, string],
      );
  const found = candidates.find(([section, name]) => hasEntry(template, section, name));
  if (found) {
    const [section, name] = found;
    if (section === 'outputs') return { problem: `depends on ${item}: outputs cannot be depended on` };
    if (sectionRank(section) > sectionRank(from)) {
      return {
        problem: `depends on ${section}.${name}, which is applied in a later phase (${phaseOf(section)})`,
      };
    }
    return { target: `${section}.${name}` };
  }
  const later = written
    ? undefined
    : APPLIED_SECTIONS.find(
        (section) => sectionRank(section) > sectionRank(from) && hasEntry(template, section, item),
      );
  if (later)
    return { problem: `depends on ${later}.${item}, which is applied in a later phase (${phaseOf(later)})` };
  return { problem: `depends on ${item}, which the template does not define` };
}

function linksOf(
  template: unknown,
  section: StackSection,
  name: string,
  entry: Record<string, unknown>,
): Link[] {
  const entryPath = childPath(childPath('template', section), name);
  const links: Link[] = [];
  for (const leaf of leavesOf(entry, entryPath)) {
    if (typeof leaf.value !== 'string') continue;
    for (const token of referenceTokensOf(leaf.value)) {
      links.push({
        path: leaf.path,
        ...(token.reference
          ? referenceLink(template, section, token.reference)
          : {
              problem: `malformed reference ${token.raw}: write \${<section>.<name>.<attribute>}, or $\${ for a literal \${`,
            }),
      });
    }
  }
  const dependsOn = entry.depends_on;
  if (section !== 'outputs' && Array.isArray(dependsOn)) {
    dependsOn.forEach((item, index) => {
      if (typeof item !== 'string') return;
      links.push({
        path: childPath(childPath(entryPath, 'depends_on'), index),
        ...dependencyLink(template, section, item),
      });
    });
  }
  return links;
}

/** Each applied entry's key and the keys it needs (same or earlier phase), sorted. */
function dependencyGraph(template: unknown): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const section of APPLIED_SECTIONS) {
    for (const [name, entry] of entriesOf(template, section)) {
      const targets = linksOf(template, section, name, entry).flatMap((link) =>
        link.target ? [link.target] : [],
      );
      graph.set(`${section}.${name}`, [...new Set(targets)].sort());
    }
  }
  return graph;
}

/** One cycle per group of entries that need each other, each starting at its first key by name. */
function dependencyCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const visit = (key: string, trail: string[]): void => {
    if (done.has(key)) return;
    const at = trail.indexOf(key);
    if (at >= 0) {
      const cycle = trail.slice(at);
      const first = cycle.indexOf([...cycle].sort()[0]!);
      cycles.push([...cycle.slice(first), ...cycle.slice(0, first)]);
      return;
    }
    for (const next of graph.get(key) ?? []) visit(next, [...trail, key]);
    done.add(key);
  };
  for (const key of [...graph.keys()].sort()) visit(key, []);
  return cycles;
}

function meaningProblems(template: unknown): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  for (const [name, resource] of entriesOf(template, 'resources')) {
    if (typeof resource.type === 'string' && !Object.hasOwn(RESOURCE_TYPES, resource.type)) {
      problems.push({
        path: childPath(childPath('template.resources', name), 'type'),
        message: `unknown resource type ${resource.type}; the types are ${Object.keys(RESOURCE_TYPES).join(', ')}`,
        status: 422,
      });
    }
  }
  for (const section of STACK_SECTIONS) {
    for (const [name, entry] of entriesOf(template, section)) {
      for (const link of linksOf(template, section, name, entry)) {
        if (link.problem) problems.push({ path: link.path, message: link.problem, status: 422 });
      }
    }
  }
  for (const cycle of dependencyCycles(dependencyGraph(template))) {
    problems.push({
      path: `template.${cycle[0]!}`,
      message: `dependency cycle ${[...cycle, cycle[0]!].join(' → ')}`,
      status: 422,
    });
  }
  return problems;
}

/** The most one database may have, as the platform's settings say. */
export interface DatabaseLimits {
  maxStorageGb: number;
  maxMemoryMb: number;
}

/**
 * What the data services would refuse in a `database` or `cache` resource, found before anything
 * is applied: an engine or version the platform does not offer, a size past its limits.
 */
function resourcePropertyProblems(template: unknown, limits: DatabaseLimits | undefined): TemplateProblem[] {
  const problems: TemplateProblem[] = [];
  for (const [name, resource] of entriesOf(template, 'resources')) {
    if (resource.type !== 'database' && resource.type !== 'cache') continue;
    const properties = isJsonObject(resource.properties) ? resource.properties : {};
    const at = (property: string, message: string) =>
      problems.push({
        path: childPath(childPath(childPath('template.resources', name), 'properties'), property),
        message,
        status: 422,
      });
    const cache = resource.type === 'cache';
    const asked = cache ? (properties.engine ?? 'redis') : properties.engine;
    if (typeof asked !== 'string' || asked === '') continue; // the shape reports it
    const engine = engineNamed(asked);
    if (!engine) {
      at('engine', engineProblem(asked)!.message);
      continue;
    }
    if (cache && !sizedByMemory(engine)) {
      at('engine', `a cache's engine must be one of ${MEMORY_ENGINES.join(', ')}`);
      continue;
    }
    const version = properties.version;
    if (typeof version === 'string' || typeof version === 'number') {
      const problem = versionProblem(engine, String(version));
      if (problem) at('version', problem.message);
    }
    if (cache) {
      const memoryMb = memoryMbOf(resource as unknown as TemplateResource);
      if (memoryMb !== undefined && memoryMb < MIN_MEMORY_MB)
        at('memory', `must be at least ${MIN_MEMORY_MB}Mi`);
      if (memoryMb !== undefined && limits && memoryMb > limits.maxMemoryMb) {
        at('memory', `must be at most ${limits.maxMemoryMb}Mi, the most a database may have here`);
      }
    } else {
      const storageGb = storageGbOf(resource as unknown as TemplateResource);
      if (storageGb !== undefined && limits && storageGb > limits.maxStorageGb) {
        at('storage_size', `must be at most ${limits.maxStorageGb}Gi, the most a database may have here`);
      }
    }
  }
  return problems;
}

/** Timeouts past the longest allowed: a range, so a matter of shape (400). */
function timeoutProblems(template: unknown): TemplateProblem[] {
  const timeouts = [
    ...entriesOf(template, 'bootstrap').map(([name, job]) => [
      childPath(childPath('template.bootstrap', name), 'timeout'),
      job.timeout,
    ]),
    ...entriesOf(template, 'services').map(([name, service]) => [
      childPath(childPath(childPath('template.services', name), 'properties'), 'timeout'),
      isJsonObject(service.properties) ? service.properties.timeout : undefined,
    ]),
  ] as [string, unknown][];
  return timeouts.flatMap(([path, timeout]): TemplateProblem[] => {
    if (typeof timeout !== 'string' || !DURATION_REGEX.test(timeout)) return []; // the pattern reports it
    const ms = timeoutMsOf(timeout, 0);
    if (ms >= 1000 && ms <= MAX_TIMEOUT_MS) return [];
    return [{ path, message: 'must be a duration from 1s to 1h', status: 400 }];
  });
}

/**
 * Every problem, shape first (JSON Schema, all errors), then meaning. Empty = valid. Without
 * `limits`, database sizes are not held against the platform's maximums.
 */
export function templateProblems(template: unknown, limits?: DatabaseLimits): TemplateProblem[] {
  const shape = validateShape(template)
    ? []
    : (validateShape.errors ?? []).flatMap((error) => shapeProblem(error, template) ?? []);
  const problems = [
    ...shape,
    ...timeoutProblems(template),
    ...meaningProblems(template),
    ...resourcePropertyProblems(template, limits),
  ];
  return problems.filter(
    (problem, index) =>
      problems.findIndex((other) => other.path === problem.path && other.message === problem.message) ===
      index,
  );
}

// ---- order ----

export interface StackStep {
  phase: StackPhase;
  section: AppliedSection;
  name: string;
  /** `<section>.<name>` */
  key: string;
  /** keys of the steps it needs (from references and depends_on), same or earlier phase */
  dependsOn: string[];
}

/** Apply order: phases in STACK_PHASES order; inside a phase a topological order, ties by name. */
export function applySteps(template: StackTemplate): StackStep[] {
  const graph = dependencyGraph(template);
  const steps: StackStep[] = [];
  for (const section of APPLIED_SECTIONS) {
    const pending = new Map(
      entriesOf(template, section).map(([name]) => [name, graph.get(`${section}.${name}`) ?? []] as const),
    );
    const placed = new Set<string>();
    while (pending.size > 0) {
      const ready = [...pending.keys()].filter((name) =>
        pending.get(name)!.every((key) => !key.startsWith(`${section}.`) || placed.has(key)),
      );
      // A cycle (refused by validation) still yields every entry: the rest by name.
      const next = ready[0] ?? [...pending.keys()][0]!;
      const key = `${section}.${next}`;
      steps.push({ phase: phaseOf(section), section, name: next, key, dependsOn: pending.get(next)! });
      placed.add(key);
      pending.delete(next);
    }
  }
  return steps;
}

/** Destroy order of what was applied: exactly the reverse of applySteps over the applied entries. */
export function destroySteps(applied: StackTemplate): StackStep[] {
  return applySteps(applied).reverse();
}
