import { ConfigError, type Env } from './env.js';

/** What one organization may hold of each managed data service; `null` is no limit. */
export interface QuotasConfig {
  databases: number | null;
  databaseStorageGb: number | null;
  nfsShares: number | null;
  nfsStorageGb: number | null;
  backups: number | null;
}

/** A limit: a whole number, or `none`. */
function limit(env: Env, name: string, fallback: number | null): number | null {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (raw.toLowerCase() === 'none') return null;
  if (!/^\d{1,9}$/.test(raw)) throw new ConfigError(name, 'a whole number or none', raw);
  return Number(raw);
}

export function quotasConfig(env: Env): QuotasConfig {
  return {
    databases: limit(env, 'CLOUDPLANE_QUOTA_DATABASES', 10),
    databaseStorageGb: limit(env, 'CLOUDPLANE_QUOTA_DATABASE_STORAGE_GB', 500),
    nfsShares: limit(env, 'CLOUDPLANE_QUOTA_NFS_SHARES', 10),
    nfsStorageGb: limit(env, 'CLOUDPLANE_QUOTA_NFS_STORAGE_GB', 1000),
    backups: limit(env, 'CLOUDPLANE_QUOTA_BACKUPS', 100),
  };
}
