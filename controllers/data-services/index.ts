/**
 * The data-services family: Database, NfsShare, Backup and Restore, their controllers, the quotas
 * they count against, and the decisions the routes share with the controllers.
 */
import type { ControllerDefinition } from '../runtime/controller.js';
import { backupController } from './backup-controller.js';
import { databaseController, type DataServicesControllerOptions } from './database-controller.js';
import { nfsShareController } from './nfs-share-controller.js';
import { restoreController } from './restore-controller.js';

export { WORKLOAD_FINALIZER } from '../runtime/finalizers.js';
export type { DataServicesControllerOptions } from './database-controller.js';
export {
  credentialsPath,
  managedVaultReady,
  MANAGED_VAULT_CLUSTER,
  readManagedSecret,
  removeManagedSecret,
  writeManagedSecret,
  type ManagedSecret,
} from './credentials.js';
export {
  cronProblem,
  DEFAULT_MEMORY_MB,
  DEFAULT_RETENTION_DAYS,
  DEFAULT_STORAGE_GB,
  engineList,
  engineProblem,
  engineNames,
  MIN_MEMORY_MB,
  nextRun,
  shrinkProblem,
  sizedByMemory,
  sizeFieldProblem,
  versionProblem,
  type Problem,
} from './engine.js';
export {
  claimQuota,
  databaseQuotaAmounts,
  quotaExceededMessage,
  quotaLimit,
  quotaUsage,
  releaseQuota,
  shareQuotaAmounts,
  type QuotaAmounts,
  type QuotaName,
} from './quotas.js';

export function dataServiceControllers(options: DataServicesControllerOptions): ControllerDefinition[] {
  return [
    databaseController(options),
    nfsShareController(options),
    backupController(options),
    restoreController(options),
  ];
}
