/**
 * MongoDB databases on this machine are only recorded: this version has no MongoDB client, so
 * nothing is created even when a server is configured, and every answer says so.
 */
import { WorkloadError, type DatabaseObservation } from '../runtime.js';
import type { LocalEngine, LocalEngineOptions } from './engine.js';

export function mongodbEngine({ config }: LocalEngineOptions): LocalEngine {
  const recorded: DatabaseObservation = {
    realization: 'recorded',
    state: 'recorded',
    message: config.mongodbAdminUrl
      ? 'MongoDB is only recorded on this machine: CLOUDPLANE_MONGODB_ADMIN_URL is set, but this version has no MongoDB client to create databases on that server'
      : 'MongoDB is only recorded on this machine: no MongoDB server is configured (set CLOUDPLANE_MONGODB_ADMIN_URL)',
  };
  const nothingToCopy = () =>
    new WorkloadError('Recorded', 'a recorded MongoDB database has no data to back up');
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
