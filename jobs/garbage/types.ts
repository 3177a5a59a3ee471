/**
 * The two shapes of a garbage collector. Records (expired tokens, old runs) go in bulk: counted,
 * then purged with one statement. Resources (a vault cluster's rows, a share directory) are
 * leftovers of an object that is gone: each is listed with its age, reported, and removed one by
 * one, and only when the control plane says its object is gone.
 */
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { ControlPlaneView } from './control-plane-view.js';

export type GcAction = 'would delete' | 'deleted' | 'protected';

/** One line of a run's report. */
export interface GcReportItem {
  collector: string;
  /** The leftover (`default/orders`, a directory), or the table and row count of a bulk collector. */
  resource: string;
  /** Whole days since it became collectable: at least this old, for a bulk collector's rows. */
  age_days: number;
  reason: string;
  action: GcAction;
}

/** What a collector may look at during one run. */
export interface GcScope {
  database: DataPlane;
  now: Date;
  /** Records that became collectable before it are past retention. */
  cutoff: string;
  retentionDays: number;
  /** Absent when the process has no control plane: collectors that need it are skipped. */
  view: ControlPlaneView | undefined;
  /** Absent when this process does not run the local workload runtime. */
  workloadsDir: string | undefined;
}

/** Rows removed in bulk. */
export interface RecordCollector {
  shape: 'records';
  /** The collector's key in the summary and the report. */
  name: string;
  reason: string;
  /** How old, in days, the youngest collectable row is at least. */
  minimumAgeDays(scope: GcScope): number;
  count(scope: GcScope): Promise<number>;
  /** Deletes what `count` counts and returns how many went. */
  purge(scope: GcScope): Promise<number>;
}

export type GcRequirement = 'control plane' | 'workloads dir';

/** A leftover found by a resource collector. */
export interface Leftover {
  resource: string;
  /** When it was made or last changed, ISO 8601: its age in the report. */
  since: string;
  reason: string;
  /** Tied to an object labelled `cloudplane.dev/gc-protect=true`: reported, never removed. */
  protected: boolean;
}

/** Leftovers of objects that are gone, one by one. */
export interface ResourceCollector {
  shape: 'resources';
  name: string;
  needs: readonly GcRequirement[];
  list(scope: GcScope): Promise<Leftover[]>;
  remove(scope: GcScope, leftover: Leftover): Promise<void>;
}

export type GarbageCollector = RecordCollector | ResourceCollector;

/** Leftovers younger than this are left alone: their object may have been made after the view was read. */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

export function ageDays(since: string, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - Date.parse(since)) / DAY_MS));
}

/** Leftovers made before this may be collected. */
export function orphanCutoff(scope: GcScope): string {
  return new Date(scope.now.getTime() - ORPHAN_GRACE_MS).toISOString();
}
