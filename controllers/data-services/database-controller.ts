import { createHash } from 'node:crypto';
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
import { WorkloadError, type DatabaseObservation, type WorkloadRuntime } from '../../workloads/runtime.js';
import type { ControllerDefinition, ReconcileContext, Reconciler } from '../runtime/controller.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import {
  credentialsPath,
  generatePassword,
  managedVaultReady,
  MANAGED_VAULT_CLUSTER,
  readCredentials,
  removeCredentials,
  writeCredentials,
} from './credentials.js';
import {
  cronProblem,
  databaseErrorStatus,
  databaseStatus,
  engineProblem,
  scheduleStep,
  sizedByMemory,
  versionProblem,
} from './engine.js';
import { addFinalizer, holdsFinalizer, removeFinalizer } from '../runtime/finalizers.js';
import { claimQuota, databaseQuotaAmounts, quotaExceededMessage, releaseQuota } from './quotas.js';
import { recordUsage } from '../runtime/usage-samples.js';
import { databaseWorkload } from './workloads-of.js';
import { objectNameOf, restIdOf } from '../../crds/ids.js';
import { SCHEDULED_BY_LABEL } from '../../crds/annotations.js';

export interface DataServicesControllerOptions {
  runtime: WorkloadRuntime;
  vault: VaultEngine;
  database: DataPlane;
  quotas: QuotasConfig;
  /** How often a database's reachability and size are looked at again. Default 30 s. */
  refreshIntervalMs?: number;
}

/**
 * Reconciles Databases: holds a finalizer until the database is gone from its server and its
 * secret from the vault; makes the database exist with the password the vault holds (generating
 * one first, and again when a rotation is asked for); reports phase, endpoint and size; takes
 * scheduled backups; writes hourly usage samples.
 */
export function databaseController(options: DataServicesControllerOptions): ControllerDefinition {
  const { runtime, vault, database: dataPlane } = options;
  const refresh = options.refreshIntervalMs ?? 30_000;

  const reconcile: Reconciler = async ({ namespace = '', name }, context) => {
    const { store, cache, clock, logger } = context;
    let object = cache.get<Database>(DATABASE, namespace, name);
    if (!object?.spec) return;
    const spec = object.spec;
    const workload = databaseWorkload(object);
    const now = clock.now();
    const generation = object.metadata.generation;

    if (object.metadata.deletionTimestamp) {
      if (!holdsFinalizer(object)) return;
      if (object.status?.phase !== 'deleting') {
        object = await store.updateStatus<Database>(DATABASE, {
          ...object,
          status: {
            ...object.status,
            phase: 'deleting',
            message: 'dropping the database and its credentials',
          },
        });
      }
      await runtime.databases.remove(workload);
      await removeCredentials(vault, namespace, workload.id);
      await releaseQuota(dataPlane, namespace, workload.id);
      await removeFinalizer(store, DATABASE, object);
      context.events.normal(
        object,
        'Deleted',
        'the database was dropped from its server and its credentials removed',
      );
      logger.info({ engine: workload.engine }, 'database removed from its server');
      return;
    }

    const problem =
      engineProblem(spec.engine) ??
      versionProblem(spec.engine, spec.version) ??
      (spec.backupSchedule ? cronProblem(spec.backupSchedule.cron) : undefined);
    if (problem) {
      return refuse(context, object, {
        reason: 'InvalidSpec',
        message: `spec.${problem.field}: ${problem.message}`,
      });
    }

    object = await addFinalizer(store, DATABASE, object);
    // A database refused (its quota, say) claims again at each look, so it is made once there is room.
    if (object.status?.observedGeneration !== generation || object.status?.phase === 'error') {
      const claim = await claimQuota(
        dataPlane,
        options.quotas,
        {
          namespace,
          resourceId: workload.id,
          amounts: databaseQuotaAmounts(workload.engine, workload.storageGb ?? 0),
        },
        now,
      );
      if (claim.outcome === 'exceeded') {
        return refuse(context, object, { reason: 'QuotaExceeded', message: quotaExceededMessage(claim) });
      }
    }

    if (!(await managedVaultReady(store, vault, namespace))) {
      await writeStatusIfChanged(
        store,
        DATABASE,
        object,
        databaseStatus(
          object.status,
          {
            realization: object.status?.realization ?? 'real',
            state: 'provisioning',
            message: 'waiting for the managed vault cluster that will hold its credentials',
          },
          { generation, now },
        ),
      );
      return { requeueAfterMs: 1_000 };
    }

    const stored = await readCredentials(vault, namespace, workload.id);
    const rotationWanted = spec.credentialsRotation ?? 0;
    const rotationDone = object.status?.credentials?.rotation ?? 0;
    const rotate = stored === undefined || rotationWanted > rotationDone;
    const password = rotate ? generatePassword() : stored.password;

    let observation: DatabaseObservation;
    try {
      observation = await runtime.databases.ensure(workload, password);
    } catch (error) {
      if (!(error instanceof WorkloadError)) throw error;
      logger.warn({ reason: error.reason, err: error.message }, 'the database server refused');
      await writeStatusIfChanged(
        store,
        DATABASE,
        object,
        databaseErrorStatus(object.status, error, { generation, now }),
      );
      return { requeueAfterMs: refresh };
    }

    let credentials: DatabaseStatus['credentials'];
    if (observation.access) {
      const version = rotate
        ? await writeCredentials(vault, namespace, workload.id, observation.access, password)
        : stored!.version;
      if (rotate)
        logger.info({ secretVersion: version }, stored ? 'credentials rotated' : 'credentials stored');
      if (rotate && stored)
        context.events.normal(
          object,
          'Rotated',
          `the password was rotated; the vault holds it as version ${version}`,
        );
      credentials = {
        vaultClusterId: MANAGED_VAULT_CLUSTER,
        vaultPath: credentialsPath(workload.id),
        version,
        rotation: rotationWanted,
      };
    }
    let status = databaseStatus(object.status, observation, { generation, now, credentials });
    if (observation.realization === 'real' && observation.state === 'ready') {
      await recordUsage(
        dataPlane,
        [
          sizedByMemory(workload.engine)
            ? { meter: 'database.memory_mb_hours', unit: 'MB-hour', quantity: workload.memoryMb ?? 0 }
            : { meter: 'database.storage_gb_hours', unit: 'GB-hour', quantity: workload.storageGb ?? 0 },
        ].map((meter) => ({
          ...meter,
          organization: namespace,
          resourceType: 'database',
          resourceId: restIdOf(name),
          resourceName: spec.name,
        })),
        now,
      );
    }
    let requeueAfterMs = refresh;
    const schedule = spec.backupSchedule;
    if (schedule && status.phase === 'available') {
      const scheduled = await takeScheduledBackup(context, object, status, now);
      status = scheduled.status;
      requeueAfterMs = Math.min(refresh, Math.max(1_000, scheduled.nextAt.getTime() - now.getTime()));
    } else if (!schedule) {
      delete status.nextScheduledBackup;
    }
    await writeStatusIfChanged(store, DATABASE, object, status);
    return { requeueAfterMs };
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
    const digest = createHash('sha256')
      .update(`${database.metadata.uid}/${step.due.toISOString()}`)
      .digest('hex');
    try {
      await store.create<Backup>(BACKUP, {
        apiVersion: API_VERSION,
        kind: BACKUP.kind,
        metadata: {
          name: objectNameOf(`bkp_${digest.slice(0, 12)}`),
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
