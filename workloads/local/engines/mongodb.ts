/**
 * MongoDB databases on this machine are only recorded: this version has no MongoDB client, so
 * nothing is created even when a server is configured, and every answer says so.
 */
import type { LocalEngine, LocalEngineOptions } from '../engine.js';
import { recordedEngine } from './recorded.js';

export function mongodbEngine({ config }: LocalEngineOptions): LocalEngine {
  return recordedEngine(
    'MongoDB',
    config.mongodbAdminUrl
      ? 'MongoDB is only recorded on this machine: CLOUDPLANE_MONGODB_ADMIN_URL is set, but this version has no MongoDB client to create databases on that server'
      : 'MongoDB is only recorded on this machine: no MongoDB server is configured (set CLOUDPLANE_MONGODB_ADMIN_URL)',
  );
}
