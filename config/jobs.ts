import { billingConfig, type BillingConfig } from './billing.js';
import { boolean, integer, type Env } from './env.js';
import { usageConfig, type UsageConfig } from './usage.js';

/** Garbage collection: whether it only reports, and how long removable records are kept. */
export interface GarbageCollectionConfig {
  dryRun: boolean;
  retentionDays: number;
}

/** What the scheduled jobs are configured with, each job reading its own part. */
export interface JobsConfig {
  garbageCollection: GarbageCollectionConfig;
  usage: UsageConfig;
  billing: BillingConfig;
}

export function jobsConfig(env: Env, place: { dataDir: string }): JobsConfig {
  return {
    garbageCollection: {
      dryRun: boolean(env, 'CLOUDPLANE_GC_DRY_RUN', true),
      retentionDays: integer(env, 'CLOUDPLANE_GC_RETENTION_DAYS', 30, 1, 3650),
    },
    usage: usageConfig(env),
    billing: billingConfig(env, place),
  };
}
