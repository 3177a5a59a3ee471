/**
 * A connector's transforms as Kafka Connect configures them: `transforms` lists aliases applied in
 * order, each with `transforms.<alias>.type` and its own keys under `transforms.<alias>.`, and
 * optionally `transforms.<alias>.predicate` (an alias of `predicates`, configured the same way
 * under `predicates.<alias>.`) with `transforms.<alias>.negate`. The same reading answers the
 * validation (`config/validate`, create) and builds the chain a task runs.
 */
import type { ConnectRecord } from '../connect-record.js';
import { predicateOf, PREDICATES, transformationOf, TRANSFORMATION_CLASSES } from './registry.js';
import {
  TransformConfigError,
  TransformSettings,
  type RecordTransform,
  type TransformKey,
  type TransformKeyType,
  type TransformRecord,
} from './transformation.js';

/** A configuration key of the connector that transforms and predicates add, as `config/validate` lists it. */
export interface TransformConfigDefinition {
  name: string;
  type: TransformKeyType;
  required: boolean;
  defaultValue?: string;
  allowed?: readonly string[];
  group: string;
  documentation: string;
}

/** A record a transform could not handle: says which transform, and why. */
export class TransformError extends Error {
  constructor(
    readonly alias: string,
    readonly transformClass: string,
    override readonly cause: Error,
  ) {
    super(`transform ${alias} (${transformClass}) failed: ${cause.message}`);
    this.name = 'TransformError';
  }
}

/** A configuration the chain cannot be built from: every problem, by key. */
export class TransformChainConfigError extends Error {
  constructor(readonly problems: Record<string, string[]>) {
    super(
      Object.entries(problems)
        .flatMap(([key, messages]) => messages.map((message) => `${key}: ${message}`))
        .join('\n'),
    );
    this.name = 'TransformChainConfigError';
  }
}

const listOf = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/** The keys under a prefix, without it. */
function scoped(config: Record<string, string>, prefix: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(config)
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, value]) => [key.slice(prefix.length), value]),
  );
}

/** What `ConfigDef` says of one value: missing, not a boolean, not among the allowed. */
function keyProblems(key: TransformKey, name: string, value: string | undefined): string[] {
  if (value === undefined) {
    return key.required && key.defaultValue === undefined
      ? [`Missing required configuration "${name}" which has no default value.`]
      : [];
  }
  if (key.type === 'BOOLEAN' && !['true', 'false'].includes(value.trim().toLowerCase())) {
    return [`Invalid value ${value} for configuration ${name}: Expected value to be either true or false`];
  }
  if (key.allowed && !key.allowed.includes(value)) {
    return [
      `Invalid value ${value} for configuration ${name}: String must be one of: ${key.allowed.join(', ')}`,
    ];
  }
  return [];
}

const TRANSFORM_IMPLICIT_KEYS: readonly TransformKey[] = [
  {
    name: 'predicate',
    type: 'STRING',
    required: false,
    documentation: 'The alias of a predicate used to determine whether to apply this transformation.',
  },
  {
    name: 'negate',
    type: 'BOOLEAN',
    required: false,
    defaultValue: 'false',
    documentation: 'Whether the configured predicate should be negated.',
  },
];

interface Reading {
  definitions: TransformConfigDefinition[];
  problems: Record<string, string[]>;
  stages: {
    alias: string;
    transformClass: string;
    apply: RecordTransform;
    predicate?: string;
    negate: boolean;
  }[];
  predicates: Map<string, (record: TransformRecord) => boolean>;
}

function read(config: Record<string, string>): Reading {
  const reading: Reading = { definitions: [], problems: {}, stages: [], predicates: new Map() };
  const problem = (key: string, message: string) => {
    (reading.problems[key] ??= []).push(message);
  };
  const define = (definition: TransformConfigDefinition) => reading.definitions.push(definition);

  /** One alias: its type key, its plugin's keys, and the configured plugin if all is well. */
  const readAlias = <P>(
    kind: 'transforms' | 'predicates',
    alias: string,
    known: readonly string[],
    lookup: (
      className: string,
    ) => { keys: readonly TransformKey[]; configure: (settings: TransformSettings) => P } | undefined,
    implicit: readonly TransformKey[],
  ): { className: string; configured: P } | undefined => {
    const prefix = `${kind}.${alias}.`;
    const group = `${kind === 'transforms' ? 'Transforms' : 'Predicates'}: ${alias}`;
    const typeKey = `${prefix}type`;
    define({
      name: typeKey,
      type: 'CLASS',
      required: true,
      group,
      documentation: `Class for the '${alias}' ${kind === 'transforms' ? 'transformation' : 'predicate'}.`,
      allowed: known,
    });
    const className = config[typeKey]?.trim();
    if (className === undefined || className === '') {
      problem(typeKey, `Missing required configuration "${typeKey}" which has no default value.`);
      return undefined;
    }
    const plugin = lookup(className);
    if (!plugin) {
      problem(
        typeKey,
        `Invalid value ${className} for configuration ${typeKey}: Class ${className} could not be found.`,
      );
      return undefined;
    }
    const keys = [...implicit, ...plugin.keys];
    const values = scoped(config, prefix);
    let valid = true;
    for (const key of keys) {
      const name = `${prefix}${key.name}`;
      define({
        name,
        type: key.type,
        required: key.required,
        group,
        documentation: key.documentation,
        ...(key.defaultValue !== undefined ? { defaultValue: key.defaultValue } : {}),
        ...(key.allowed ? { allowed: key.allowed } : {}),
      });
      for (const message of keyProblems(key, name, values[key.name])) {
        problem(name, message);
        valid = false;
      }
    }
    if (!valid) return undefined;
    try {
      return { className, configured: plugin.configure(new TransformSettings(keys, values)) };
    } catch (error) {
      if (!(error instanceof TransformConfigError)) throw error;
      problem(error.key === undefined ? typeKey : `${prefix}${error.key}`, error.message);
      return undefined;
    }
  };

  const aliasesOf = (key: 'transforms' | 'predicates'): string[] => {
    define({
      name: key,
      type: 'LIST',
      required: false,
      defaultValue: '',
      group: key === 'transforms' ? 'Transforms' : 'Predicates',
      documentation:
        key === 'transforms'
          ? 'Aliases for the transformations to be applied to records.'
          : 'Aliases for the predicates used by transformations.',
    });
    const aliases = listOf(config[key]);
    if (new Set(aliases).size < aliases.length) {
      problem(key, `Invalid value ${config[key]} for configuration ${key}: Duplicate alias provided.`);
    }
    return [...new Set(aliases)];
  };

  const transformAliases = aliasesOf('transforms');
  const predicateAliases = aliasesOf('predicates');
  for (const alias of transformAliases) {
    const transform = readAlias(
      'transforms',
      alias,
      TRANSFORMATION_CLASSES.map((entry) => entry.class),
      (className) => {
        const found = transformationOf(className);
        return (
          found && {
            keys: found.plugin.keys,
            configure: (settings: TransformSettings) => found.plugin.configure(settings, found.side),
          }
        );
      },
      TRANSFORM_IMPLICIT_KEYS,
    );
    const prefix = `transforms.${alias}.`;
    const predicate = config[`${prefix}predicate`]?.trim();
    if (config[`${prefix}negate`] !== undefined && (predicate === undefined || predicate === '')) {
      problem(
        `${prefix}type`,
        `Config '${prefix}negate' was provided but there is no config '${prefix}predicate' defining a predicate to be negated.`,
      );
      continue;
    }
    if (predicate && !predicateAliases.includes(predicate)) {
      problem(
        `${prefix}predicate`,
        `Invalid value ${predicate} for configuration ${prefix}predicate: no predicate ${predicate} is listed in predicates`,
      );
      continue;
    }
    if (!transform) continue;
    reading.stages.push({
      alias,
      transformClass: transform.className,
      apply: transform.configured,
      ...(predicate ? { predicate } : {}),
      negate: (config[`${prefix}negate`] ?? 'false').trim().toLowerCase() === 'true',
    });
  }
  for (const alias of predicateAliases) {
    const predicate = readAlias(
      'predicates',
      alias,
      PREDICATES.map((plugin) => plugin.class),
      predicateOf,
      [],
    );
    if (predicate) reading.predicates.set(alias, predicate.configured);
  }
  return reading;
}

/**
 * The keys transforms and predicates add to a connector's configuration, with every problem found,
 * by key, in Kafka's words: what `config/validate` lists, and what makes a create a 400.
 */
export function transformationConfigInfo(config: Record<string, string>): {
  definitions: TransformConfigDefinition[];
  problems: Record<string, string[]>;
} {
  const { definitions, problems } = read(config);
  return { definitions, problems };
}

/** A chain of transforms: the record transformed, or null when one of them dropped it. */
export type TransformChain = <R extends ConnectRecord>(record: R) => R | null;

/**
 * The connector's transforms in `transforms` order, each applied where its predicate (negated
 * with `negate`) holds. Throws `TransformChainConfigError` for a configuration `config/validate`
 * refuses; the chain throws `TransformError` naming the alias for a record a transform cannot handle.
 */
export function transformChain(config: Record<string, string>): TransformChain {
  const { problems, stages, predicates } = read(config);
  if (Object.keys(problems).length > 0) throw new TransformChainConfigError(problems);
  if (stages.length === 0) return (record) => record;
  return <R extends ConnectRecord>(record: R): R | null => {
    let current: TransformRecord | null = record;
    for (const stage of stages) {
      if (current === null) return null;
      try {
        if (stage.predicate !== undefined && predicates.get(stage.predicate)!(current) === stage.negate)
          continue;
        current = stage.apply(current);
      } catch (error) {
        throw new TransformError(stage.alias, stage.transformClass, error as Error);
      }
    }
    return current as R | null;
  };
}
