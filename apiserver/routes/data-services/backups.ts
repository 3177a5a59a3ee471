/**
 * `/v1/backups`: backups of databases and shares, and restores from them. A backup outlives its
 * source until its retention passes; a restore loads it into the same or a new resource.
 */
import { API_VERSION } from '../../../control-plane/kind-descriptor.js';
import type { Principal } from '../../../accounts/principal.js';
import type { QuotasConfig } from '../../../config/quotas.js';
import type { KubeObject, ObjectStore } from '../../../control-plane/types.js';
import { ownerReference } from '../../../control-plane/owner-references.js';
import type { DataPlane } from '../../../data-plane/data-plane.js';
import {
  databaseQuotaAmounts,
  DEFAULT_MEMORY_MB,
  DEFAULT_RETENTION_DAYS,
  DEFAULT_STORAGE_GB,
  shareQuotaAmounts,
  sizedByMemory,
} from '../../../controllers/data-services/index.js';
import {
  BACKUP,
  DATABASE,
  NFS_SHARE,
  RESTORE,
  type Backup,
  type BackupPhase,
  type Database,
  type DatabaseEngineName,
  type NfsShare,
  type Restore,
} from '../../../crds/data-services.js';
import { conflict, notFound } from '../../errors.js';
import type { JsonSchema, ObjectSchema } from '../../routing/json-schema.js';
import { PAGE_QUERY_PROPERTIES, type PageQuery } from '../../routing/pagination.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import { deleteResource, listResources, readResource } from '../../routing/resource-handlers.js';
import { findInOrganization } from '../../routing/tenancy.js';
import {
  BASE,
  createWithinQuota,
  DATABASES,
  NFS_SHARES,
  BACKUPS,
  RESTORES,
  ID_PARAMS,
  invalidField,
  READ,
  WRITE,
  type DataServiceRouteServices,
  type IdParams,
} from './resources.js';
import { newRestId, objectNameOf, restIdOf } from '../../../crds/ids.js';
import { SCHEDULED_BY_LABEL } from '../../../crds/annotations.js';

const PHASES: readonly BackupPhase[] = ['pending', 'running', 'completed', 'failed'];

const BACKUP_BODY = {
  type: 'object',
  properties: {
    id: { type: 'string', examples: ['bkp_0a1b2c3d4e5f'] },
    resource_id: { type: 'string' },
    resource_type: { type: 'string', enum: ['database', 'nfs_share'] },
    status: { type: 'string', enum: PHASES },
    size_bytes: { type: ['integer', 'null'] },
    retention_days: { type: 'integer' },
    scheduled: { type: 'boolean' },
    started_at: { type: ['string', 'null'], format: 'date-time' },
    completed_at: { type: ['string', 'null'], format: 'date-time' },
    expires_at: { type: ['string', 'null'], format: 'date-time' },
    message: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

const RESTORE_BODY = {
  type: 'object',
  properties: {
    restore_id: { type: 'string' },
    status: { type: 'string', enum: ['running', 'completed', 'failed'] },
    target_resource_id: { type: 'string' },
    message: { type: ['string', 'null'] },
  },
} as const satisfies JsonSchema;

const RESTORE_PARAMS = {
  type: 'object',
  required: ['id', 'restore_id'],
  properties: { ...ID_PARAMS.properties, restore_id: ID_PARAMS.properties.id },
} as const satisfies ObjectSchema;

function describeBackup(backup: Backup) {
  const status = backup.status;
  return {
    id: restIdOf(backup.metadata.name),
    resource_id: restIdOf(backup.spec!.source.name),
    resource_type: backup.spec!.source.kind === 'Database' ? 'database' : 'nfs_share',
    status: status?.phase ?? 'pending',
    size_bytes: status?.sizeBytes ?? null,
    retention_days: backup.spec!.retentionDays,
    scheduled: backup.metadata.labels?.[SCHEDULED_BY_LABEL] !== undefined,
    started_at: status?.startedAt ?? null,
    completed_at: status?.completedAt ?? null,
    expires_at: status?.expiresAt ?? null,
    message: status?.message ?? null,
    created_at: backup.metadata.creationTimestamp ?? '',
  };
}

function describeRestore(restore: Restore) {
  return {
    restore_id: restIdOf(restore.metadata.name),
    status: restore.status?.phase ?? 'running',
    target_resource_id: restIdOf(restore.spec!.target),
    message: restore.status?.message ?? null,
  };
}

const base = { ...BASE, tags: ['backups'] } as const;

/** The kind a REST id names, by its prefix. */
function sourceKindOf(id: string): 'Database' | 'NfsShare' | undefined {
  if (id.startsWith('db_')) return 'Database';
  if (id.startsWith('nfs_')) return 'NfsShare';
  return undefined;
}

/** `<name>-restore-<n>`, the first n no resource of the organization is named. */
function restoreName(base: string, taken: readonly KubeObject<{ name: string }>[]): string {
  const names = new Set(taken.map((object) => object.spec?.name));
  let n = 1;
  while (names.has(`${base}-restore-${n}`)) n += 1;
  return `${base}-restore-${n}`;
}

const BACKUP_FAMILY = { lookup: BACKUPS, view: describeBackup };

async function listBackups({
  query,
  principal,
  store,
}: AuthenticatedContext<{ query: PageQuery & { resource_id?: string; status?: BackupPhase } }>) {
  return listResources(
    { query, principal, store },
    BACKUP_FAMILY,
    (row) =>
      (query.resource_id === undefined || row.resource_id === query.resource_id) &&
      (query.status === undefined || row.status === query.status),
  );
}

async function createBackup({
  body,
  principal,
  store,
  database,
  now,
  quotas,
}: AuthenticatedContext<
  { body: { resource_id: string; retention_days?: number } },
  DataServiceRouteServices
>) {
  const kind = sourceKindOf(body.resource_id);
  if (!kind)
    throw notFound(
      `resource ${body.resource_id} not found: a backup is of a database (db_…) or a share (nfs_…)`,
    );
  const source =
    kind === 'Database'
      ? await findInOrganization(store, principal, DATABASES, body.resource_id)
      : await findInOrganization(store, principal, NFS_SHARES, body.resource_id);
  const namespace = source.metadata.namespace!;
  const created = await createWithinQuota<Backup>(
    { store, database, now, quotas },
    BACKUP,
    newRestId('bkp'),
    { backups: 1 },
    {
      namespace,
      spec: {
        source: { kind, name: source.metadata.name },
        retentionDays: body.retention_days ?? DEFAULT_RETENTION_DAYS,
      },
    },
  );
  return { status: 201, data: describeBackup(created) };
}

async function getBackup(ctx: AuthenticatedContext<{ params: IdParams }>) {
  return readResource(ctx, BACKUP_FAMILY);
}

async function deleteBackup(ctx: AuthenticatedContext<{ params: IdParams }>) {
  return deleteResource(ctx, BACKUP_FAMILY);
}

/**
 * The existing database or share a restore writes into, by its REST id: of the backup's source
 * kind and, for a database, of its engine.
 */
async function existingRestoreTarget(
  store: ObjectStore,
  principal: Principal,
  backup: Backup,
  targetId: string,
): Promise<string> {
  const sourceKind = backup.spec!.source.kind;
  const engine = backup.status?.sourceEngine as DatabaseEngineName | undefined;
  if (sourceKindOf(targetId) !== sourceKind) {
    throw invalidField({
      field: 'target_resource_id',
      message: `a backup of a ${sourceKind === 'Database' ? 'database' : 'share'} restores into one of the same kind`,
    });
  }
  if (sourceKind !== 'Database') {
    return (await findInOrganization(store, principal, NFS_SHARES, targetId)).metadata.name;
  }
  const target = await findInOrganization(store, principal, DATABASES, targetId);
  if (engine && target.spec!.engine !== engine) {
    throw invalidField({
      field: 'target_resource_id',
      message: `a ${engine} backup cannot be restored into a ${target.spec!.engine} database`,
    });
  }
  return target.metadata.name;
}

/**
 * A new database or share like the backup's source (its size, engine and version), named after
 * it and created within the organization's quotas, for a restore given no target.
 */
async function newRestoreTarget(
  services: { store: ObjectStore; database: DataPlane; now: () => Date; quotas: QuotasConfig },
  backup: Backup,
): Promise<string> {
  const { store } = services;
  const namespace = backup.metadata.namespace!;
  const baseName = backup.status?.sourceDisplayName ?? restIdOf(backup.spec!.source.name);
  if (backup.spec!.source.kind === 'NfsShare') {
    const source = await store
      .get<NfsShare>(NFS_SHARE, namespace, backup.spec!.source.name)
      .catch(() => undefined);
    const sizeGb = source?.spec?.sizeGb ?? 1;
    const { items } = await store.list<NfsShare>(NFS_SHARE, { namespace });
    const share = await createWithinQuota<NfsShare>(
      services,
      NFS_SHARE,
      newRestId('nfs'),
      shareQuotaAmounts(sizeGb),
      { namespace, spec: { name: restoreName(baseName, items), sizeGb } },
    );
    return share.metadata.name;
  }
  const databaseEngine = (backup.status?.sourceEngine as DatabaseEngineName | undefined) ?? 'postgresql';
  const source = await store
    .get<Database>(DATABASE, namespace, backup.spec!.source.name)
    .catch(() => undefined);
  const memory = sizedByMemory(databaseEngine);
  const storageGb = source?.spec?.storageGb ?? DEFAULT_STORAGE_GB;
  const { items } = await store.list<Database>(DATABASE, { namespace });
  const target = await createWithinQuota<Database>(
    services,
    DATABASE,
    newRestId('db'),
    databaseQuotaAmounts(databaseEngine, storageGb),
    {
      namespace,
      spec: {
        name: restoreName(baseName, items),
        engine: databaseEngine,
        ...(source?.spec?.version === undefined ? {} : { version: source.spec.version }),
        ...(memory ? { memoryMb: source?.spec?.memoryMb ?? DEFAULT_MEMORY_MB } : { storageGb }),
      },
    },
  );
  return target.metadata.name;
}

async function restoreBackup({
  params,
  body,
  principal,
  store,
  database,
  now,
  quotas,
}: AuthenticatedContext<
  { params: IdParams; body: { target_resource_id?: string } },
  DataServiceRouteServices
>) {
  const backup = await findInOrganization(store, principal, BACKUPS, params.id);
  if (backup.status?.phase !== 'completed') {
    throw conflict(
      `backup ${params.id} is ${backup.status?.phase ?? 'pending'}: only a completed backup can be restored`,
    );
  }
  const targetName =
    body.target_resource_id !== undefined
      ? await existingRestoreTarget(store, principal, backup, body.target_resource_id)
      : await newRestoreTarget({ store, database, now, quotas }, backup);
  const restore = await store.create<Restore>(RESTORE, {
    apiVersion: API_VERSION,
    kind: RESTORE.kind,
    metadata: {
      name: objectNameOf(newRestId('rst')),
      namespace: backup.metadata.namespace!,
      ownerReferences: [ownerReference(backup, { controller: true, blockOwnerDeletion: true })],
    },
    spec: { backup: backup.metadata.name, target: targetName },
  });
  return { status: 202, data: describeRestore(restore) };
}

async function getRestore({
  params,
  principal,
  store,
}: AuthenticatedContext<{ params: IdParams & { restore_id: string } }>) {
  const backup = await findInOrganization(store, principal, BACKUPS, params.id);
  const restore = await findInOrganization(store, principal, RESTORES, params.restore_id);
  if (restore.spec?.backup !== backup.metadata.name) throw notFound(`restore ${params.restore_id} not found`);
  return { data: describeRestore(restore) };
}

export const backupRoutes: RouteModule<DataServiceRouteServices> = {
  area: 'resources',
  routes: [
    defineRoute<{ query: PageQuery & { resource_id?: string; status?: BackupPhase } }>({
      ...base,
      method: 'get',
      path: '/v1/backups',
      scopes: READ,
      summary: "The organization's backups",
      request: {
        query: {
          type: 'object',
          properties: {
            resource_id: { type: 'string', maxLength: 64 },
            status: { type: 'string', enum: PHASES },
            ...PAGE_QUERY_PROPERTIES,
          },
        },
      },
      responses: {
        200: {
          description: 'Backups, oldest first',
          paginated: true,
          schema: { type: 'array', items: BACKUP_BODY },
        },
      },
      handler: listBackups,
    }),
    defineRoute<{ body: { resource_id: string; retention_days?: number } }, DataServiceRouteServices>({
      ...base,
      method: 'post',
      path: '/v1/backups',
      scopes: WRITE,
      summary: 'Back up a database or a share now',
      description:
        'pg_dump, mysqldump, a Redis snapshot or an archive of the share; size_bytes is the real size.',
      request: {
        body: {
          type: 'object',
          required: ['resource_id'],
          additionalProperties: false,
          properties: {
            resource_id: { type: 'string', minLength: 1, maxLength: 64 },
            retention_days: {
              type: 'integer',
              minimum: 1,
              maximum: 3650,
              default: DEFAULT_RETENTION_DAYS,
              'x-domain-rule': true,
            },
          },
        },
      },
      responses: {
        201: { description: 'The backup, pending', schema: BACKUP_BODY },
        404: { description: 'No such database or share in the organization' },
        429: { description: 'The backup quota is reached' },
      },
      handler: createBackup,
    }),
    defineRoute<{ params: IdParams }>({
      ...base,
      method: 'get',
      path: '/v1/backups/:id',
      scopes: READ,
      summary: 'A backup',
      request: { params: ID_PARAMS },
      responses: {
        200: { description: 'The backup', schema: BACKUP_BODY },
        404: { description: 'No such backup' },
      },
      handler: getBackup,
    }),
    defineRoute<{ params: IdParams }>({
      ...base,
      method: 'delete',
      path: '/v1/backups/:id',
      scopes: WRITE,
      summary: 'Delete a backup and its dump',
      request: { params: ID_PARAMS },
      responses: { 204: { description: 'Deleting' }, 404: { description: 'No such backup' } },
      handler: deleteBackup,
    }),
    defineRoute<{ params: IdParams; body: { target_resource_id?: string } }, DataServiceRouteServices>({
      ...base,
      method: 'post',
      path: '/v1/backups/:id/restore',
      scopes: WRITE,
      summary: 'Restore a backup',
      description:
        'Into target_resource_id (what it holds is replaced), or, without one, into a new database or share named ' +
        '`<name>-restore-<n>` of the same engine and size. Answers at once; follow the restore by its id.',
      request: {
        params: ID_PARAMS,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { target_resource_id: { type: 'string', minLength: 1, maxLength: 64 } },
        },
      },
      responses: {
        202: { description: 'The restore, running', schema: RESTORE_BODY },
        404: { description: 'No such backup or target' },
        409: { description: 'The backup has not completed' },
        422: { description: 'The target is of another kind or engine' },
        429: { description: 'A quota is reached (a new target counts)' },
      },
      handler: restoreBackup,
    }),
    defineRoute<{ params: IdParams & { restore_id: string } }>({
      ...base,
      method: 'get',
      path: '/v1/backups/:id/restores/:restore_id',
      scopes: READ,
      summary: 'A restore of a backup',
      request: { params: RESTORE_PARAMS },
      responses: {
        200: { description: 'The restore', schema: RESTORE_BODY },
        404: { description: 'No such backup or restore' },
      },
      handler: getRestore,
    }),
  ],
};
