/**
 * The Kubernetes runtime's database engines: how each engine of the engine list
 * (crds/database-engines) runs in a cluster, under the same name.
 */
import type { DatabaseEngineName } from '../../../crds/database-engines/index.js';
import { WorkloadError } from '../../runtime.js';
import type { KubernetesEngine } from './engine.js';
import { mongodb } from './mongodb.js';
import { mysql } from './mysql.js';
import { postgresql } from './postgresql.js';
import { redis } from './redis.js';

export type { DumpPlace, KubernetesEngine } from './engine.js';
export { tenantEnv } from './engine.js';

const KUBERNETES_ENGINES = new Map<DatabaseEngineName, KubernetesEngine>(
  [postgresql, mysql, redis, mongodb].map((engine) => [engine.name, engine]),
);

/** Adds how an engine registered beyond the built-in ones runs in a cluster. */
export function registerKubernetesEngine(engine: KubernetesEngine): void {
  if (KUBERNETES_ENGINES.has(engine.name))
    throw new Error(`the Kubernetes engine ${engine.name} is registered already`);
  KUBERNETES_ENGINES.set(engine.name, engine);
}

/** Whether an engine of that name is registered with this runtime. */
export function runsEngine(name: string): boolean {
  return KUBERNETES_ENGINES.has(name);
}

/** How `name` runs in a cluster; a WorkloadError for an engine this runtime cannot run. */
export function kubernetesEngine(name: DatabaseEngineName): KubernetesEngine {
  const engine = KUBERNETES_ENGINES.get(name);
  if (!engine)
    throw new WorkloadError('UnsupportedEngine', `this cluster runtime cannot run ${name} databases`);
  return engine;
}
