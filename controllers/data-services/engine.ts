/**
 * The decisions of the data-services family, as pure functions: which engines, versions and sizes
 * are accepted, what a database's or share's status is given what the runtime observed, when a
 * schedule runs next, when a backup expires.
 */
import { createHash } from 'node:crypto';
import { utcSchedule } from '../runtime/cron.js';
import type { Condition } from '../../control-plane/types.js';
import {
  databaseEngine,
  databaseEngineNames,
  databaseEngines,
  engineNamed,
  offeredVersions,
} from '../../crds/database-engines/index.js';
import type {
  Backup,
  BackupPhase,
  BackupStatus,
  Database,
  DatabaseEngineName,
  DatabasePhase,
  DatabaseSpec,
  DatabaseStatus,
  NfsShare,
  NfsShareSpec,
  NfsShareStatus,
} from '../../crds/data-services.js';
import type { DatabaseObservation, ShareObservation } from '../../workloads/runtime.js';
import { setCondition } from '../runtime/conditions.js';
import { objectNameOf, restIdOf } from '../../crds/ids.js';

/** The engines, each under its own name; requests may also use an alias (`mariadb`). */
export function engineNames(): readonly DatabaseEngineName[] {
  return databaseEngineNames();
}

/** Engines whose size is storage; Redis's is memory. */
export function sizedByMemory(engine: DatabaseEngineName): boolean {
  return databaseEngine(engine).sizedBy === 'memory';
}

export const DEFAULT_STORAGE_GB = 10;
export const DEFAULT_MEMORY_MB = 256;
/** The least memory a Redis database may have, in MiB. */
export const MIN_MEMORY_MB = 16;
export const DEFAULT_RETENTION_DAYS = 7;

export interface Problem {
  field: string;
  message: string;
}

/** `postgresql, mysql (or mariadb), redis, mongodb`: each engine with its other names. */
export function engineList(): string {
  return databaseEngines()
    .map(({ name, aliases }) => (aliases.length > 0 ? `${name} (or ${aliases.join(', ')})` : name))
    .join(', ');
}

export function engineProblem(engine: string): Problem | undefined {
  return engineNamed(engine)
    ? undefined
    : { field: 'engine', message: `engine must be one of ${engineList()}` };
}

export function versionProblem(engine: DatabaseEngineName, version: string | undefined): Problem | undefined {
  if (version === undefined) return undefined;
  const offered = offeredVersions(engine);
  return offered.includes(version)
    ? undefined
    : { field: 'version', message: `${engine} version must be one of ${offered.join(', ')}` };
}

/** A change of size that would shrink, which no engine here can do in place. */
export function shrinkProblem(
  current: Pick<DatabaseSpec, 'storageGb' | 'memoryMb'>,
  wanted: { storageGb?: number; memoryMb?: number },
): Problem | undefined {
  if (
    wanted.storageGb !== undefined &&
    current.storageGb !== undefined &&
    wanted.storageGb < current.storageGb
  ) {
    return {
      field: 'storage_gb',
      message: `storage_gb can only grow: it is ${current.storageGb}, asked ${wanted.storageGb}`,
    };
  }
  if (wanted.memoryMb !== undefined && current.memoryMb !== undefined && wanted.memoryMb < current.memoryMb) {
    return {
      field: 'memory_mb',
      message: `memory_mb can only grow: it is ${current.memoryMb}, asked ${wanted.memoryMb}`,
    };
  }
  return undefined;
}

/** The field a size goes in for an engine that does not take it. */
export function sizeFieldProblem(
  engine: DatabaseEngineName,
  body: { storage_gb?: number; memory_mb?: number },
): Problem | undefined {
  if (sizedByMemory(engine) && body.storage_gb !== undefined) {
    return { field: 'storage_gb', message: `${engine} is sized by memory_mb, not storage_gb` };
  }
  if (!sizedByMemory(engine) && body.memory_mb !== undefined) {
    return { field: 'memory_mb', message: `${engine} is sized by storage_gb, not memory_mb` };
  }
  return undefined;
}

/** Why a cron expression cannot drive a schedule, or undefined. Five fields, UTC. */
export function cronProblem(cron: string): Problem | undefined {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) {
    return {
      field: 'cron',
      message: `cron must have 5 fields (minute hour day month weekday), got ${fields.length}`,
    };
  }
  try {
    utcSchedule(cron);
    return undefined;
  } catch (error) {
    return { field: 'cron', message: `cron is not valid: ${(error as Error).message}` };
  }
}

/** The schedule's next run strictly after `after`. */
export function nextRun(cron: string, after: Date): Date | undefined {
  return utcSchedule(cron).nextRun(after) ?? undefined;
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * One look at a backup schedule. A schedule counts from when it was set (or changed), not from
 * the database's creation: the first run is the first moment after that. A planned moment that
 * has passed is due once, however late (moments missed while the platform was down are not made
 * up one by one), and the next is the first moment after now.
 */
export function scheduleStep(input: {
  cron: string;
  /** The moment planned at the previous look, if any. */
  planned: string | undefined;
  scheduleChanged: boolean;
  now: Date;
}): { due?: Date; next: Date } {
  const following = nextRun(input.cron, input.now) ?? new Date(input.now.getTime() + DAY_MS);
  if (input.scheduleChanged || input.planned === undefined) return { next: following };
  const planned = new Date(input.planned);
  if (planned.getTime() > input.now.getTime()) return { next: planned };
  return { due: planned, next: following };
}

/** What makes a database's spec unacceptable, first found first: its engine, version, schedule. */
export function databaseSpecProblem(spec: DatabaseSpec): Problem | undefined {
  return (
    engineProblem(spec.engine) ??
    versionProblem(spec.engine, spec.version) ??
    (spec.backupSchedule ? cronProblem(spec.backupSchedule.cron) : undefined)
  );
}

/**
 * Whether a reconcile claims a database's or share's quota: for a spec not yet observed, and again
 * at each look while it is refused (its quota, say), so it is made once there is room.
 */
export function claimsQuota(
  status: { observedGeneration?: number | undefined; phase?: string | undefined } | undefined,
  generation: number | undefined,
): boolean {
  return status?.observedGeneration !== generation || status?.phase === 'error';
}

/** A workload counts for the hour's usage only while it really runs and is ready. */
export function billable(observation: { realization: string; state: string }): boolean {
  return observation.realization === 'real' && observation.state === 'ready';
}

/** A new password is made when the vault holds none, or a rotation was asked for and not done. */
export function rotationDue(input: { stored: boolean; wanted: number; done: number }): boolean {
  return !input.stored || input.wanted > input.done;
}

/**
 * When a database with a backup schedule is looked at again: at its next backup, but no later
 * than the refresh and no sooner than a second from now.
 */
export function scheduledRequeueMs(refreshMs: number, nextBackup: Date, now: Date): number {
  return Math.min(refreshMs, Math.max(1_000, nextBackup.getTime() - now.getTime()));
}

/** The name of the backup a schedule owes at `due`: the same at each retry of the reconcile. */
export function scheduledBackupName(databaseUid: string | undefined, due: Date): string {
  const digest = createHash('sha256').update(`${databaseUid}/${due.toISOString()}`).digest('hex');
  return objectNameOf(`bkp_${digest.slice(0, 12)}`);
}

export function expiresAt(completedAt: Date, retentionDays: number): Date {
  return new Date(completedAt.getTime() + retentionDays * DAY_MS);
}

/** What a finished backup's look comes to: deleted once its retention has passed, else looked at again. */
export function finishedBackupStep(
  expiresAtIso: string | undefined,
  now: Date,
): { expired: true } | { expired: false; requeueAfterMs: number } {
  const expiry = expiresAtIso ? new Date(expiresAtIso).getTime() : Infinity;
  if (expiry <= now.getTime()) return { expired: true };
  return { expired: false, requeueAfterMs: Math.min(HOUR_MS, Math.max(1_000, expiry - now.getTime())) };
}

/** Why a backup or restore cannot go on yet: it fails for good, or waits and looks again. */
export type Hold = { failure: string } | { waitMs: number; message: string };

const WAIT_FOR_PART_MS = 2_000;

const waiting = (message: string): Hold => ({ waitMs: WAIT_FOR_PART_MS, message });

/** Why a share cannot be dumped or loaded yet, or undefined when it can. */
export function shareHold(share: NfsShare | undefined, name: string): Hold | undefined {
  if (!share?.spec) return { failure: `the share ${restIdOf(name)} does not exist` };
  if (share.status?.phase !== 'available') return waiting('waiting for the share to be available');
  return undefined;
}

/** Why a database cannot be dumped yet, or undefined when it can. */
export function backupSourceHold(database: Database | undefined, name: string): Hold | undefined {
  if (!database?.spec) return { failure: `the database ${restIdOf(name)} does not exist` };
  if (database.status?.realization === 'recorded') {
    return {
      failure: `the database is only recorded (${database.status.message ?? 'nothing runs'}): there is no data to back up`,
    };
  }
  if (database.status?.phase !== 'available') return waiting('waiting for the database to be available');
  return undefined;
}

/** Why a restore cannot load its backup yet, or undefined once the backup has completed. */
export function restoreBackupHold(backup: Backup | undefined, name: string): Hold | undefined {
  if (!backup?.spec) return { failure: `the backup ${restIdOf(name)} does not exist` };
  const phase = backup.status?.phase;
  if (phase === 'failed')
    return { failure: `the backup failed: ${backup.status?.message ?? 'no reason given'}` };
  if (phase !== 'completed' || !backup.status?.location) return waiting('waiting for the backup to complete');
  return undefined;
}

/** Why a share cannot take a restore yet, or undefined when it can; a share being deleted takes none. */
export function restoreShareHold(share: NfsShare | undefined, name: string): Hold | undefined {
  return shareHold(share?.metadata.deletionTimestamp ? undefined : share, name);
}

/** Why a database cannot take a restore of a `sourceEngine` backup yet, or undefined when it can. */
export function restoreTargetHold(
  database: Database | undefined,
  name: string,
  sourceEngine: string | undefined,
): Hold | undefined {
  if (!database?.spec || database.metadata.deletionTimestamp)
    return { failure: `the database ${restIdOf(name)} does not exist` };
  if (sourceEngine && sourceEngine !== database.spec.engine) {
    return { failure: `a ${sourceEngine} backup cannot be restored into a ${database.spec.engine} database` };
  }
  if (database.status?.realization === 'recorded')
    return { failure: 'the target database is only recorded: nothing runs to restore into' };
  if (database.status?.phase === 'error')
    return { failure: `the target database is in error: ${database.status.message ?? ''}` };
  if (database.status?.phase !== 'available')
    return waiting('waiting for the target database to be available');
  return undefined;
}

export const REASONS = {
  Available: 'Available',
  Provisioning: 'Provisioning',
  Recorded: 'Recorded',
  Degraded: 'Degraded',
  WorkloadFailed: 'WorkloadFailed',
  Deleting: 'Deleting',
} as const;

function phaseOf(observation: DatabaseObservation): DatabasePhase {
  switch (observation.state) {
    case 'ready':
      return 'available';
    case 'recorded':
      return 'recorded';
    case 'degraded':
      return 'degraded';
    case 'provisioning':
      return 'provisioning';
  }
}

function readyCondition(phase: DatabasePhase, message: string | undefined, generation: number | undefined) {
  const reason = {
    available: REASONS.Available,
    provisioning: REASONS.Provisioning,
    recorded: REASONS.Recorded,
    degraded: REASONS.Degraded,
    error: REASONS.WorkloadFailed,
    deleting: REASONS.Deleting,
  }[phase];
  return {
    type: 'Ready',
    // A recorded database is never Ready: nothing runs.
    status: phase === 'available' ? ('True' as const) : ('False' as const),
    reason,
    message:
      message ??
      (phase === 'available' ? 'the database is running and reachable' : `the database is ${phase}`),
    observedGeneration: generation,
  };
}

/** A database's status from what the runtime observed. */
export function databaseStatus(
  current: DatabaseStatus | undefined,
  observation: DatabaseObservation,
  context: { generation: number | undefined; now: Date; credentials?: DatabaseStatus['credentials'] },
): DatabaseStatus {
  const phase = phaseOf(observation);
  const status: DatabaseStatus = {
    ...current,
    phase,
    realization: observation.realization,
    message: observation.message,
    version: observation.version ?? current?.version,
    endpoint: observation.access
      ? { host: observation.access.host, port: observation.access.port }
      : current?.endpoint,
    credentials: context.credentials ?? current?.credentials,
    storageUsedMb:
      observation.storageUsedBytes === undefined
        ? current?.storageUsedMb
        : Math.ceil(observation.storageUsedBytes / (1024 * 1024)),
    observedGeneration: context.generation,
    conditions: setCondition(
      current?.conditions,
      readyCondition(phase, observation.message, context.generation),
      context.now,
    ),
  };
  if (status.message === undefined) delete status.message;
  return dropUndefined(status);
}

/** The conditions of an object the runtime refused: Ready False, with the runtime's reason. */
function refusedConditions(
  conditions: Condition[] | undefined,
  failure: { reason: string; message: string },
  context: { generation: number | undefined; now: Date },
): Condition[] {
  return setCondition(
    conditions,
    {
      type: 'Ready',
      status: 'False',
      reason: failure.reason,
      message: failure.message,
      observedGeneration: context.generation,
    },
    context.now,
  );
}

/**
 * A database the runtime refused, with the server's reason: `error` while it was never made,
 * `degraded` once it had been (its server gone after a restart, say), since the data is still there.
 */
export function databaseErrorStatus(
  current: DatabaseStatus | undefined,
  failure: { reason: string; message: string },
  context: { generation: number | undefined; now: Date },
): DatabaseStatus {
  return dropUndefined({
    ...current,
    phase: current?.credentials ? 'degraded' : 'error',
    realization: current?.realization ?? 'recorded',
    message: failure.message,
    observedGeneration: context.generation,
    conditions: refusedConditions(current?.conditions, failure, context),
  });
}

const MEBIBYTE = 1024 * 1024;
const GIGABYTE = 1024 * MEBIBYTE;

/**
 * A share the runtime refused, with its reason: in error, keeping what else status said of it.
 */
export function shareErrorStatus(
  current: NfsShareStatus | undefined,
  failure: { reason: string; message: string },
  context: { generation: number | undefined; now: Date },
): NfsShareStatus {
  return {
    ...current,
    phase: 'error',
    message: failure.message,
    observedGeneration: context.generation,
    conditions: refusedConditions(current?.conditions, failure, context),
  };
}

/** A share's status; over its soft quota it stays available with QuotaExceeded True. */
export function shareStatus(
  current: NfsShareStatus | undefined,
  spec: NfsShareSpec,
  observation: ShareObservation,
  context: { generation: number | undefined; now: Date },
): NfsShareStatus {
  const phase =
    observation.state === 'ready'
      ? 'available'
      : observation.state === 'provisioning'
        ? 'provisioning'
        : 'error';
  const over = observation.usedBytes > spec.sizeGb * GIGABYTE;
  let conditions = setCondition(
    current?.conditions,
    {
      type: 'Ready',
      status: phase === 'available' ? 'True' : 'False',
      reason:
        phase === 'available'
          ? REASONS.Available
          : observation.state === 'degraded'
            ? REASONS.Degraded
            : REASONS.Provisioning,
      message: observation.message ?? `the share is ${phase}`,
      observedGeneration: context.generation,
    },
    context.now,
  );
  conditions = setCondition(
    conditions,
    {
      type: 'QuotaExceeded',
      status: over ? 'True' : 'False',
      reason: over ? 'OverSoftQuota' : 'WithinQuota',
      message: over
        ? `the share holds ${Math.ceil(observation.usedBytes / MEBIBYTE)} MB, more than its ${spec.sizeGb} GB; grow it or remove files`
        : `within its ${spec.sizeGb} GB`,
      observedGeneration: context.generation,
    },
    context.now,
  );
  return dropUndefined({
    phase,
    realization: observation.realization,
    message: observation.message,
    mount: observation.mount ?? current?.mount,
    usedMb: Math.ceil(observation.usedBytes / MEBIBYTE),
    observedGeneration: context.generation,
    conditions,
  });
}

/** A backup's status at a step of its run. */
export function backupStatus(
  current: BackupStatus | undefined,
  phase: BackupPhase,
  fields: Partial<BackupStatus>,
  context: { generation: number | undefined; now: Date },
): BackupStatus {
  const condition: Omit<Condition, 'lastTransitionTime'> = {
    type: 'Ready',
    status: phase === 'completed' ? 'True' : 'False',
    reason: { pending: 'Pending', running: 'Running', completed: 'Completed', failed: 'Failed' }[phase],
    message: fields.message ?? current?.message ?? `the backup is ${phase}`,
    observedGeneration: context.generation,
  };
  return dropUndefined({
    ...current,
    ...fields,
    phase,
    observedGeneration: context.generation,
    conditions: setCondition(current?.conditions, condition, context.now),
  });
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
