/** What the data-services routes share: lookups within the caller's organization, ids, errors. */
import type { QuotasConfig } from '../../../config/quotas.js';
import type { WorkloadsConfig } from '../../../config/workloads.js';
import type { KubeObject, ObjectStore, ResourceType } from '../../../control-plane/types.js';
import {
  claimQuota,
  quotaExceededMessage,
  releaseQuota,
  type Problem,
  type QuotaAmounts,
  WORKLOAD_FINALIZER,
} from '../../../controllers/data-services/index.js';
import { API_VERSION } from '../../../control-plane/kind-descriptor.js';
import { objectNameOf } from '../../../crds/ids.js';
import type { DataPlane } from '../../../data-plane/data-plane.js';
import { ApiError, unprocessable } from '../../errors.js';
import type { JsonSchema, ObjectSchema } from '../../routing/json-schema.js';
import type { OrganizationLookup } from '../../routing/tenancy.js';
import {
  BACKUP,
  DATABASE,
  NFS_SHARE,
  RESTORE,
  type Backup,
  type Database,
  type NfsShare,
  type Restore,
} from '../../../crds/data-services.js';

/** What the data-services routes need beyond the core services. */
export interface DataServiceRouteServices {
  quotas: QuotasConfig;
  workloadsConfig: WorkloadsConfig;
}

export const READ = ['databases:read'];
export const WRITE = ['databases:write'];
export const BASE = { area: 'resources', auth: 'authenticated' } as const;

export const ID_PARAMS = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z0-9][a-z0-9_-]*$' } },
} as const satisfies ObjectSchema;

export interface IdParams {
  id: string;
}

export const NAME = {
  type: 'string',
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
} as const satisfies JsonSchema;

export const MOUNT = {
  type: ['object', 'null'],
  properties: { server: { type: 'string' }, path: { type: 'string' } },
} as const satisfies JsonSchema;

/** How the data-services kinds are found in the caller's organization by their REST ids. */
export const DATABASES: OrganizationLookup<Database> = {
  type: DATABASE,
  objectName: objectNameOf,
  noun: 'database',
};
export const NFS_SHARES: OrganizationLookup<NfsShare> = {
  type: NFS_SHARE,
  objectName: objectNameOf,
  noun: 'share',
};
export const BACKUPS: OrganizationLookup<Backup> = { type: BACKUP, objectName: objectNameOf, noun: 'backup' };
export const RESTORES: OrganizationLookup<Restore> = {
  type: RESTORE,
  objectName: objectNameOf,
  noun: 'restore',
};

/** A 422 naming the field, as the spec asks for a broken domain rule. */
export function invalidField(problem: Problem): ApiError {
  return unprocessable(`${problem.field}: ${problem.message}`, { details: { field: problem.field } });
}

/** The 429 of a quota: waiting does not help, so no Retry-After. */
export function quotaExceeded(
  result: Extract<Awaited<ReturnType<typeof claimQuota>>, { outcome: 'exceeded' }>,
): ApiError {
  return new ApiError(429, 'quota_exceeded', quotaExceededMessage(result), {
    quota: result.quota,
    limit: result.limit,
    used: result.used,
  });
}

/**
 * Creates a data-services object with its quota claimed first, in the organization's serialised
 * transaction: past a quota it is a 429 and nothing is written; a failed create releases the claim.
 */
export async function createWithinQuota<T extends KubeObject>(
  services: { store: ObjectStore; database: DataPlane; now: () => Date; quotas: QuotasConfig },
  type: ResourceType,
  id: string,
  amounts: QuotaAmounts,
  object: { namespace: string; spec: NonNullable<T['spec']> },
): Promise<T> {
  const { store, database, now, quotas } = services;
  const claim = await claimQuota(
    database,
    quotas,
    { namespace: object.namespace, resourceId: id, amounts },
    now(),
  );
  if (claim.outcome === 'exceeded') throw quotaExceeded(claim);
  try {
    return await store.create<T>(type, {
      apiVersion: API_VERSION,
      kind: type.kind,
      metadata: {
        name: objectNameOf(id),
        namespace: object.namespace,
        // The quota is claimed already: however soon the object is deleted, its finalizer releases it.
        finalizers: [WORKLOAD_FINALIZER],
      },
      spec: object.spec,
    } as T);
  } catch (error) {
    await releaseQuota(database, object.namespace, id);
    throw error;
  }
}
