import { garbageCollection } from './garbage-collection.js';
import type { JobDefinition } from './job.js';
import { meterSync } from './meter-sync.js';
import { usageAggregation } from './usage-aggregation.js';

export type { JobContext, JobDefinition, JobDeps, JobRun } from './job.js';

/** The background jobs the spec defines, in the order they are listed. */
export const JOBS: readonly JobDefinition[] = [usageAggregation, meterSync, garbageCollection];
