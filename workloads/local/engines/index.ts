/**
 * The local runtime's database engines: one server per engine of the engine list
 * (crds/database-engines), under the same name. An engine without one here is only recorded.
 */
import { databaseEngine, type DatabaseEngineName } from '../../../crds/database-engines/index.js';
import type { LocalEngine, LocalEngineOptions } from '../engine.js';
import { mongodbEngine } from './mongodb.js';
import { mysqlEngine } from './mysql.js';
import { postgresqlEngine } from './postgresql.js';
import { recordedByDeclaration } from './recorded.js';
import { redisEngine } from './redis.js';

/** Builds an engine's local server from the runtime's options. */
export type LocalEngineFactory = (options: LocalEngineOptions) => LocalEngine;

const LOCAL_ENGINES = new Map<DatabaseEngineName, LocalEngineFactory>([
  ['postgresql', postgresqlEngine],
  ['mysql', mysqlEngine],
  ['redis', redisEngine],
  ['mongodb', mongodbEngine],
]);

/** Adds the local server of an engine registered beyond the built-in ones. */
export function registerLocalEngine(name: DatabaseEngineName, factory: LocalEngineFactory): void {
  if (LOCAL_ENGINES.has(name)) throw new Error(`the local engine ${name} is registered already`);
  LOCAL_ENGINES.set(name, factory);
}

/**
 * The runtime's engines, each registered server built now: `engineFor(name)` gives an engine's
 * server (a recorded one for an engine without), `close()` stops what they started in this process.
 */
export function localEngines(options: LocalEngineOptions) {
  const built = new Map<DatabaseEngineName, LocalEngine>(
    [...LOCAL_ENGINES].map(([name, factory]) => [name, factory(options)]),
  );
  return {
    engineFor(name: DatabaseEngineName): LocalEngine {
      let engine = built.get(name);
      if (!engine) {
        engine = recordedByDeclaration(databaseEngine(name));
        built.set(name, engine);
      }
      return engine;
    },
    async close(): Promise<void> {
      await Promise.allSettled([...built.values()].map((engine) => engine.close()));
    },
  };
}
