/**
 * The database engines the platform offers: the one list that the Database CRD's schema, the
 * REST API (`GET /v1/databases/versions` serves it), stack templates, the controllers and both
 * workload runtimes read. Each engine is one file here; its local server and its Kubernetes
 * rendering are registered under the same name by each runtime (`workloads/local/engines`,
 * `workloads/kubernetes/engines`).
 */
import type { DatabaseEngine } from './engine.js';
import { mongodb } from './mongodb.js';
import { mysql } from './mysql.js';
import { postgresql } from './postgresql.js';
import { redis } from './redis.js';

export type { DatabaseEngine } from './engine.js';

/** In the order clients are shown them. */
const ENGINES: DatabaseEngine[] = [postgresql, mysql, redis, mongodb];

// A registered engine's name, and a version one of them offers: plain strings to the type (a line
// comment, so the CRD keeps its own descriptions), narrowed by the CRD's enums from the list.
export type DatabaseEngineName = string;
export type DatabaseVersion = string;

/**
 * Adds an engine offered beyond the built-in ones; it must be registered before the platform's
 * modules are loaded, since route and template schemas are built from the list when they load.
 */
export function registerDatabaseEngine(engine: DatabaseEngine): void {
  const taken = engineNamed(engine.name) ?? engine.aliases.map(engineNamed).find(Boolean);
  if (taken) throw new Error(`database engine ${engine.name}: the name is taken by ${taken}`);
  ENGINES.push(engine);
}

export function databaseEngines(): readonly DatabaseEngine[] {
  return ENGINES;
}

export function databaseEngineNames(): readonly DatabaseEngineName[] {
  return ENGINES.map((engine) => engine.name);
}

/** The engine kept under `name`; throws for a name no engine has (the CRD's schema refuses it). */
export function databaseEngine(name: DatabaseEngineName): DatabaseEngine {
  const engine = ENGINES.find((candidate) => candidate.name === name);
  if (!engine) throw new Error(`no database engine is named ${JSON.stringify(name)}`);
  return engine;
}

/** The names a request may give: each engine's own, then the aliases. */
export function acceptedEngineNames(): readonly string[] {
  return [...databaseEngineNames(), ...ENGINES.flatMap((engine) => engine.aliases)];
}

/** The engine a name stands for (`mariadb` is `mysql`), or undefined when none does. */
export function engineNamed(name: string): DatabaseEngineName | undefined {
  return ENGINES.find((engine) => engine.name === name || engine.aliases.includes(name))?.name;
}

export function offeredVersions(engine: DatabaseEngineName): readonly string[] {
  return databaseEngine(engine).versions;
}

/** Every version of every engine, once each: what the CRD lets `spec.version` be. */
export function allOfferedVersions(): readonly string[] {
  return [...new Set(ENGINES.flatMap((engine) => engine.versions))];
}
