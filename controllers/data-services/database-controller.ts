import type { QuotasConfig } from '../../config/quotas.js';
import { API_VERSION } from '../../control-plane/kind-descriptor.js';
import { isStoreError } from '../../control-plane/types.js';
import {
  BACKUP,
  DATABASE,
  type Backup,
  type Database,
  type DatabaseStatus,
} from '../../crds/data-services.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import { VAULT_CLUSTER } from '../../crds/vault-cluster.js';
import type { VaultEngine } from '../../vault/vault-engine.js';
import {
  WorkloadError,
  type DatabaseObservation,
  type DatabaseWorkload,
  type WorkloadRuntime,
} from '../../workloads/runtime.js';
import type {
  ControllerDefinition,
  ReconcileContext,
  ReconcileResult,
  Reconciler,
} from '../runtime/controller.js';
import { markDeleting, writeStatusIfChanged } from '../runtime/status.js';
import {
  credentialsPath,
  generatePassword,
  managedVaultReady,
  MANAGED_VAULT_CLUSTER,
  readCredentials,
  removeCredentials,
  writeCredentials,
  type StoredCredentials,
} from './credentials.js';
import {
  billable,
  claimsQuota,
  databaseErrorStatus,
  databaseSpecProblem,
  databaseStatus,
  rotationDue,
  scheduledBackupName,
  scheduledRequeueMs,
  scheduleStep,
  sizedByMemory,
} from './engine.js';
import { addFinalizer, holdsFinalizer, removeFinalizer } from '../runtime/finalizers.js';
import { claimQuota, databaseQuotaAmounts, quotaExceededMessage, releaseQuota } from './quotas.js';
import { recordUsage } from '../runtime/usage-samples.js';
import { databaseWorkload } from './workloads-of.js';
import { restIdOf } from '../../crds/ids.js';
import { SCHEDULED_BY_LABEL } from '../../crds/annotations.js';

export interface DataServicesControllerOptions {
  runtime: WorkloadRuntime;
  vault: VaultEngine;
  database: DataPlane;
  quotas: QuotasConfig;
  /** How often a database's reachability and size are looked at again. Default 30 s. */
  refreshIntervalMs?: number;
}

/** What one reconcile of a database or a share works with. */
export interface WorkloadRun<W> {
  context: ReconcileContext;
  options: DataServicesControllerOptions;
  namespace: string;
  workload: W;
  now: Date;
  refreshMs: number;
}

export function workloadRun<W>(
  context: ReconcileContext,
  options: DataServicesControllerOptions,
  namespace: string,
  workload: W,
): WorkloadRun<W> {
  return {
    context,
    options,
    namespace,
    workload,
    now: context.clock.now(),
    refreshMs: options.refreshIntervalMs ?? 30_000,
  };
}

type DatabaseRun = WorkloadRun<DatabaseWorkload>;

/** What the server answered to making the database exist with `password`. */
interface Ensured {
  observation: DatabaseObservation;
  password: string;
  stored: StoredCredentials | undefined;
  rotate: boolean;
}

/** Marks the database deleting, drops it from its server, its credentials and quota, and lets it go. */
async function removeDatabase(database: Database, run: DatabaseRun): Promise<void> {
  const { context, options, namespace, workload } = run;
  if (!holdsFinalizer(database)) return;
  database = await markDeleting(
    context.store,
    DATABASE,
    database,
    'dropping the database and its credentials',
  );
  await options.runtime.databases.remove(workload);
  await removeCredentials(options.vault, namespace, workload.id);
  await releaseQuota(options.database, namespace, workload.id);
  await removeFinalizer(context.store, DATABASE, database);
  context.events.normal(
    database,
    'Deleted',
    'the database was dropped from its server and its credentials removed',
  );
  context.logger.info({ engine: workload.engine }, 'database removed from its server');
}

/** Claims the database's quota when its spec is new or it was refused; false when refused now. */
async function quotaClaimed(database: Database, run: DatabaseRun): Promise<boolean> {
  const { options, namespace, workload } = run;
  if (!claimsQuota(database.status, database.metadata.generation)) return true;
  const claim = await claimQuota(
    options.database,
    options.quotas,
    {
      namespace,
      resourceId: workload.id,
      amounts: databaseQuotaAmounts(workload.engine, workload.storageGb ?? 0),
    },
    run.now,
  );
  if (claim.outcome !== 'exceeded') return true;
  await refuse(run.context, database, { reason: 'QuotaExceeded', message: quotaExceededMessage(claim) });
  return false;
}

/** Says the database waits for the managed vault cluster that will hold its credentials. */
async function waitForVault(database: Database, run: DatabaseRun): Promise<ReconcileResult> {
  await writeStatusIfChanged(
    run.context.store,
    DATABASE,
    database,
    databaseStatus(
      database.status,
      {
        realization: database.status?.realization ?? 'real',
        state: 'provisioning',
        message: 'waiting for the managed vault cluster that will hold its credentials',
      },
      { generation: database.metadata.generation, now: run.now },
    ),
  );
  return { requeueAfterMs: 1_000 };
}

/**
 * Makes the database exist with the password the vault holds, or a new one when none is held or
 * a rotation is due. Undefined when the server refused: its reason is written into status.
 */
async function ensureOnServer(database: Database, run: DatabaseRun): Promise<Ensured | undefined> {
  const { context, options, namespace, workload } = run;
  const stored = await readCredentials(options.vault, namespace, workload.id);
  const rotate = rotationDue({
    stored: stored !== undefined,
    wanted: database.spec!.credentialsRotation ?? 0,
    done: database.status?.credentials?.rotation ?? 0,
  });
  const password = rotate || !stored ? generatePassword() : stored.password;
  try {
    const observation = await options.runtime.databases.ensure(workload, password);
    return { observation, password, stored, rotate };
  } catch (error) {
    if (!(error instanceof WorkloadError)) throw error;
    context.logger.warn({ reason: error.reason, err: error.message }, 'the database server refused');
    await writeStatusIfChanged(
      context.store,
      DATABASE,
      database,
      databaseErrorStatus(database.status, error, { generation: database.metadata.generation, now: run.now }),
    );
    return undefined;
  }
}

/** Keeps a new password in the vault once the server took it; what status says of the credentials. */
async function keepCredentials(
  database: Database,
  ensured: Ensured,
  run: DatabaseRun,
): Promise<DatabaseStatus['credentials']> {
  const { context, options, namespace, workload } = run;
  const { observation, password, stored, rotate } = ensured;
  if (!observation.access) return undefined;
  const version =
    rotate || !stored
      ? await writeCredentials(options.vault, namespace, workload.id, observation.access, password)
      : stored.version;
  if (rotate)
    context.logger.info({ secretVersion: version }, stored ? 'credentials rotated' : 'credentials stored');
  if (rotate && stored)
    context.events.normal(
      database,
      'Rotated',
      `the password was rotated; the vault holds it as version ${version}`,
    );
  return {
    vaultClusterId: MANAGED_VAULT_CLUSTER,
    vaultPath: credentialsPath(workload.id),
    version,
    rotation: database.spec!.credentialsRotation ?? 0,
  };
}

/** The hour's usage sample of a database that runs: its memory or its storage. */
async function recordDatabaseUsage(database: Database, run: DatabaseRun): Promise<void> {
  const { workload } = run;
  const meter = sizedByMemory(workload.engine)
    ? { meter: 'database.memory_mb_hours', unit: 'MB-hour', quantity: workload.memoryMb ?? 0 }
    : { meter: 'database.storage_gb_hours', unit: 'GB-hour', quantity: workload.storageGb ?? 0 };
  await recordUsage(
    run.options.database,
    [
      {
        ...meter,
        organization: run.namespace,
        resourceType: 'database',
        resourceId: restIdOf(database.metadata.name),
        resourceName: database.spec!.name,
      },
    ],
    run.now,
  );
}

/** Writes what the server answered, records usage and takes the backup the schedule owes. */
async function reportObserved(
  database: Database,
  ensured: Ensured,
  run: DatabaseRun,
): Promise<ReconcileResult> {
  const { observation } = ensured;
  const credentials = await keepCredentials(database, ensured, run);
  let status = databaseStatus(database.status, observation, {
    generation: database.metadata.generation,
    now: run.now,
    credentials,
  });
  if (billable(observation)) await recordDatabaseUsage(database, run);
  let requeueAfterMs = run.refreshMs;
  if (database.spec!.backupSchedule && status.phase === 'available') {
    const scheduled = await takeScheduledBackup(run.context, database, status, run.now);
    status = scheduled.status;
    requeueAfterMs = scheduledRequeueMs(run.refreshMs, scheduled.nextAt, run.now);
  } else if (!database.spec!.backupSchedule) {
    delete status.nextScheduledBackup;
  }
  await writeStatusIfChanged(run.context.store, DATABASE, database, status);
  return { requeueAfterMs };
}

/**
 * Reconciles Databases: holds a finalizer until the database is gone from its server and its
 * secret from the vault; makes the database exist with the password the vault holds (generating
 * one first, and again when a rotation is asked for); reports phase, endpoint and size; takes
 * scheduled backups; writes hourly usage samples.
 */
export function databaseController(options: DataServicesControllerOptions): ControllerDefinition {
  const reconcile: Reconciler = async ({ namespace = '', name }, context) => {
    let database = context.cache.get<Database>(DATABASE, namespace, name);
    if (!database?.spec) return;
    const run = workloadRun(context, options, namespace, databaseWorkload(database));
    if (database.metadata.deletionTimestamp) return removeDatabase(database, run);
    const problem = databaseSpecProblem(database.spec);
    if (problem) {
      return refuse(context, database, {
        reason: 'InvalidSpec',
        message: `spec.${problem.field}: ${problem.message}`,
      });
    }
    database = await addFinalizer(context.store, DATABASE, database);
    if (!(await quotaClaimed(database, run))) return;
    if (!(await managedVaultReady(context.store, options.vault, namespace)))
      return waitForVault(database, run);
    const ensured = await ensureOnServer(database, run);
    if (!ensured) return { requeueAfterMs: run.refreshMs };
    return reportObserved(database, ensured, run);
  };

  return {
    name: 'database',
    for: DATABASE,
    // The managed vault cluster coming up (or going) wakes the databases waiting for it.
    watches: [
      {
        type: VAULT_CLUSTER,
        map: (cluster, cache) =>
          cluster.metadata.name === MANAGED_VAULT_CLUSTER
            ? cache
                .list<Database>(DATABASE, cluster.metadata.namespace)
                .map((database) => ({ namespace: database.metadata.namespace, name: database.metadata.name }))
            : [],
      },
    ],
    reconcile,
  };
}

/**
 * A database the platform will not make as asked: the reason goes into `status.message` and the
 * Ready condition, and nothing is retried until the spec changes.
 */
async function refuse(
  { store, clock, logger }: ReconcileContext,
  database: Database,
  failure: { reason: string; message: string },
): Promise<undefined> {
  logger.warn(failure, 'database refused');
  await writeStatusIfChanged(
    store,
    DATABASE,
    database,
    databaseErrorStatus(database.status, failure, {
      generation: database.metadata.generation,
      now: clock.now(),
    }),
  );
  return undefined;
}

/** Makes the backup the schedule owes, if any, and says when the next one is. */
async function takeScheduledBackup(
  { store }: ReconcileContext,
  database: Database,
  status: DatabaseStatus,
  now: Date,
): Promise<{ status: DatabaseStatus; nextAt: Date }> {
  const schedule = database.spec!.backupSchedule!;
  const step = scheduleStep({
    cron: schedule.cron,
    planned: database.status?.nextScheduledBackup,
    scheduleChanged: database.status?.observedGeneration !== database.metadata.generation,
    now,
  });
  if (step.due) {
    // Named after the moment, so a retried reconcile finds the backup instead of making another.
    try {
      await store.create<Backup>(BACKUP, {
        apiVersion: API_VERSION,
        kind: BACKUP.kind,
        metadata: {
          name: scheduledBackupName(database.metadata.uid, step.due),
          namespace: database.metadata.namespace,
          labels: { [SCHEDULED_BY_LABEL]: database.metadata.name },
        },
        spec: {
          source: { kind: 'Database', name: database.metadata.name },
          retentionDays: schedule.retentionDays,
        },
      });
    } catch (error) {
      if (!isStoreError(error, 'AlreadyExists')) throw error;
    }
  }
  return {
    status: {
      ...status,
      ...(step.due ? { lastScheduledBackup: step.due.toISOString() } : {}),
      nextScheduledBackup: step.next.toISOString(),
    },
    nextAt: step.next,
  };
}
