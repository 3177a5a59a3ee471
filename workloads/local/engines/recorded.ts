/**
 * A local engine that runs nothing and says why: what the local runtime answers for an engine
 * whose declaration says it is only recorded here, or for which no local server is registered.
 */
import type { DatabaseEngine } from '../../../crds/database-engines/index.js';
import { WorkloadError, type DatabaseObservation } from '../../runtime.js';
import type { LocalEngine } from '../engine.js';

export function recordedEngine(product: string, message: string): LocalEngine {
  const recorded: DatabaseObservation = { realization: 'recorded', state: 'recorded', message };
  const nothingToCopy = () =>
    new WorkloadError('Recorded', `a recorded ${product} database has no data to back up`);
  return {
    ensure: async () => ({ ...recorded }),
    observe: async () => ({ ...recorded }),
    remove: async () => undefined,
    backup: async () => {
      throw nothingToCopy();
    },
    restore: async () => {
      throw nothingToCopy();
    },
    close: async () => undefined,
  };
}

/** The recorded engine for a declaration without a local server. */
export function recordedByDeclaration(engine: DatabaseEngine): LocalEngine {
  const why = engine.recordedLocally ?? 'no local server is registered for it';
  return recordedEngine(engine.product, `${engine.product} is only recorded on this machine: ${why}`);
}
