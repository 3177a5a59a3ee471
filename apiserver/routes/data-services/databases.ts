/**
 * `/v1/databases`: managed databases. The routes validate, count the quota and write the Database
 * object; its controller makes the database exist and writes its credentials to the vault.
 */
import {
  claimQuota,
  cronProblem,
  databaseQuotaAmounts,
  DEFAULT_MEMORY_MB,
  DEFAULT_STORAGE_GB,
  engineList,
  engineProblem,
  engineNames,
  nextRun,
  shrinkProblem,
  sizedByMemory,
  sizeFieldProblem,
  versionProblem,
} from '../../../controllers/data-services/index.js';
import {
  DATABASE,
  type Database,
  type DatabasePhase,
  type DatabaseVersion,
} from '../../../crds/data-services.js';
import {
  acceptedEngineNames,
  databaseEngine,
  databaseEngines,
  engineNamed,
} from '../../../crds/database-engines/index.js';
import { restIdOf, workloadIdOf } from '../../../crds/ids.js';
import { conflict, notFound, serviceUnavailable } from '../../errors.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { PAGE_QUERY_PROPERTIES, pageOf, type PageQuery } from '../../routing/pagination.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import {
  createResource,
  deleteResource,
  listResources,
  readResource,
} from '../../routing/resource-handlers.js';
import { findInOrganization } from '../../routing/tenancy.js';
import {
  BASE,
  createWithinQuota,
  DATABASES,
  ID_PARAMS,
  invalidField,
  NAME,
  quotaExceeded,
  READ,
  WRITE,
  type DataServiceRouteServices,
  type IdParams,
} from './resources.js';

const STATUSES: readonly DatabasePhase[] = [
  'provisioning',
  'available',
  'recorded',
  'degraded',
  'deleting',
  'error',
];

const DATABASE_BODY = {
  type: 'object',
  properties: {
    id: { type: 'string', examples: ['db_0a1b2c3d4e5f'] },
    name: { type: 'string' },
    engine: { type: 'string', enum: engineNames() },
    version: { type: ['string', 'null'], description: 'The engine version actually running' },
    plan: { type: ['string', 'null'] },
    status: { type: 'string', enum: STATUSES },
    realization: { type: 'string', enum: ['real', 'recorded'] },
    message: { type: ['string', 'null'], description: 'Why recorded, degraded or in error' },
    storage_gb: { type: ['integer', 'null'] },
    memory_mb: { type: ['integer', 'null'] },
    storage_used_mb: { type: ['integer', 'null'] },
    endpoint: {
      type: ['object', 'null'],
      properties: { host: { type: 'string' }, port: { type: 'integer' } },
    },
    credentials: {
      type: ['object', 'null'],
      description: 'Where the connection string is: a KV v2 secret in the managed vault cluster',
      properties: { vault_cluster_id: { type: 'string' }, vault_path: { type: 'string' } },
    },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

const ENGINE_OFFER_BODY = {
  type: 'object',
  properties: {
    engine: { type: 'string', enum: engineNames() },
    product: { type: 'string', description: 'What runs: the mysql engine is MariaDB', examples: ['MariaDB'] },
    aliases: {
      type: 'array',
      items: { type: 'string' },
      description: 'Other names a request may give the engine',
    },
    versions: { type: 'array', items: { type: 'string' }, examples: [['14', '15', '16', '17']] },
    default_version: {
      type: 'string',
      description:
        'What a database asked without a version runs (in cluster mode: the tag of the configured image)',
    },
    sized_by: { type: 'string', enum: ['storage_gb', 'memory_mb'] },
  },
} as const satisfies JsonSchema;

const SCHEDULE_BODY = {
  type: 'object',
  properties: {
    cron: { type: 'string' },
    retention_days: { type: 'integer' },
    next_run_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const satisfies JsonSchema;

function restStatus(database: Database): DatabasePhase {
  if (database.metadata.deletionTimestamp) return 'deleting';
  return database.status?.phase ?? 'provisioning';
}

export function describeDatabase(database: Database) {
  const spec = database.spec!;
  const status = database.status;
  const memory = sizedByMemory(spec.engine);
  const phase = restStatus(database);
  return {
    id: restIdOf(database.metadata.name),
    name: spec.name,
    engine: spec.engine,
    version: status?.version ?? spec.version ?? null,
    plan: spec.plan ?? null,
    status: phase,
    realization: status?.realization ?? (databaseEngine(spec.engine).recordedLocally ? 'recorded' : 'real'),
    // A database in error always says why: objects refused before the message was kept have it in Ready.
    message:
      status?.message ??
      (phase === 'error'
        ? status?.conditions?.find((condition) => condition.type === 'Ready')?.message
        : undefined) ??
      null,
    storage_gb: memory ? null : (spec.storageGb ?? DEFAULT_STORAGE_GB),
    memory_mb: memory ? (spec.memoryMb ?? DEFAULT_MEMORY_MB) : null,
    storage_used_mb: status?.storageUsedMb ?? null,
    endpoint:
      status?.endpoint && phase !== 'recorded'
        ? { host: status.endpoint.host, port: status.endpoint.port }
        : null,
    credentials: status?.credentials
      ? { vault_cluster_id: status.credentials.vaultClusterId, vault_path: status.credentials.vaultPath }
      : null,
    created_at: database.metadata.creationTimestamp ?? '',
  };
}

interface CreateBody {
  name: string;
  engine: string;
  version?: string;
  plan?: string;
  storage_gb?: number;
  memory_mb?: number;
}

interface ScheduleBody {
  cron: string;
  retention_days: number;
}

const base = { ...BASE, tags: ['databases'] } as const;
const ROTATION_WAIT_MS = 30_000;

function sizeLimits(
  body: { storage_gb?: number; memory_mb?: number },
  limits: DataServiceRouteServices['workloadsConfig'],
) {
  if (body.storage_gb !== undefined && body.storage_gb > limits.maxStorageGb) {
    throw invalidField({ field: 'storage_gb', message: `must be at most ${limits.maxStorageGb}` });
  }
  if (body.memory_mb !== undefined && body.memory_mb > limits.maxMemoryMb) {
    throw invalidField({ field: 'memory_mb', message: `must be at most ${limits.maxMemoryMb}` });
  }
}

async function listDatabaseVersions({ query }: AuthenticatedContext<{ query: PageQuery }>) {
  const rows = databaseEngines().map((offer) => {
    return {
      engine: offer.name,
      product: offer.product,
      aliases: [...offer.aliases],
      versions: [...offer.versions],
      default_version: offer.defaultVersion,
      sized_by: offer.sizedBy === 'memory' ? 'memory_mb' : 'storage_gb',
    };
  });
  return pageOf(rows, query);
}

const DATABASE_FAMILY = { lookup: DATABASES, view: describeDatabase, idPrefix: 'db' } as const;

async function listDatabases({
  query,
  principal,
  store,
}: AuthenticatedContext<{ query: PageQuery & { engine?: string; status?: DatabasePhase } }>) {
  const engine = query.engine === undefined ? undefined : engineNamed(query.engine);
  return listResources(
    { query, principal, store },
    DATABASE_FAMILY,
    (row) =>
      (engine === undefined || row.engine === engine) &&
      (query.status === undefined || row.status === query.status),
  );
}

async function createDatabase({
  body,
  principal,
  store,
  database,
  now,
  quotas,
  workloadsConfig,
  logger,
}: AuthenticatedContext<{ body: CreateBody }, DataServiceRouteServices>) {
  const engine = engineNamed(body.engine);
  if (!engine) throw invalidField(engineProblem(body.engine)!);
  const problem = versionProblem(engine, body.version) ?? sizeFieldProblem(engine, body);
  if (problem) throw invalidField(problem);
  sizeLimits(body, workloadsConfig);
  const name = body.name.trim();
  const storageGb = body.storage_gb ?? DEFAULT_STORAGE_GB;
  return createResource({ store, principal }, DATABASE_FAMILY, name, async ({ id, namespace }) => {
    const created = await createWithinQuota<Database>(
      { store, database, now, quotas },
      DATABASE,
      id,
      databaseQuotaAmounts(engine, storageGb),
      {
        namespace,
        spec: {
          name,
          engine,
          ...(body.version === undefined ? {} : { version: body.version as DatabaseVersion }),
          ...(body.plan === undefined ? {} : { plan: body.plan }),
          ...(sizedByMemory(engine) ? { memoryMb: body.memory_mb ?? DEFAULT_MEMORY_MB } : { storageGb }),
        },
      },
    );
    logger.info({ databaseId: id, engine }, 'database created');
    return created;
  });
}

async function getDatabase(ctx: AuthenticatedContext<{ params: IdParams }>) {
  return readResource(ctx, DATABASE_FAMILY);
}

async function growDatabase({
  params,
  body,
  principal,
  store,
  database,
  now,
  quotas,
  workloadsConfig,
}: AuthenticatedContext<
  { params: IdParams; body: { storage_gb?: number; memory_mb?: number } },
  DataServiceRouteServices
>) {
  const object = await findInOrganization(store, principal, DATABASES, params.id);
  const spec = object.spec!;
  const problem =
    sizeFieldProblem(spec.engine, body) ??
    shrinkProblem(spec, { storageGb: body.storage_gb, memoryMb: body.memory_mb });
  if (problem) throw invalidField(problem);
  sizeLimits(body, workloadsConfig);
  const namespace = object.metadata.namespace!;
  if (body.storage_gb !== undefined) {
    const claim = await claimQuota(
      database,
      quotas,
      {
        namespace,
        resourceId: workloadIdOf('db', namespace, object.metadata.name),
        amounts: databaseQuotaAmounts(spec.engine, body.storage_gb),
      },
      now(),
    );
    if (claim.outcome === 'exceeded') throw quotaExceeded(claim);
  }
  const updated = await store.update<Database>(DATABASE, {
    ...object,
    spec: {
      ...spec,
      ...(body.storage_gb === undefined ? {} : { storageGb: body.storage_gb }),
      ...(body.memory_mb === undefined ? {} : { memoryMb: body.memory_mb }),
    },
  });
  return { data: describeDatabase(updated) };
}

async function deleteDatabase(ctx: AuthenticatedContext<{ params: IdParams }>) {
  return deleteResource(ctx, DATABASE_FAMILY);
}

async function rotateDatabaseCredentials({
  params,
  principal,
  store,
}: AuthenticatedContext<{ params: IdParams }>) {
  const object = await findInOrganization(store, principal, DATABASES, params.id);
  if (object.status?.phase !== 'available' || !object.status.credentials) {
    throw conflict(
      `database ${params.id} is ${restStatus(object)}: only an available database has credentials to rotate`,
    );
  }
  const wanted = (object.spec!.credentialsRotation ?? 0) + 1;
  await store.update<Database>(DATABASE, {
    ...object,
    spec: { ...object.spec!, credentialsRotation: wanted },
  });
  const deadline = Date.now() + ROTATION_WAIT_MS;
  while (Date.now() < deadline) {
    const current = await store.get<Database>(DATABASE, object.metadata.namespace, object.metadata.name);
    const credentials = current.status?.credentials;
    if ((credentials?.rotation ?? 0) >= wanted) {
      return {
        data: {
          credentials: {
            vault_cluster_id: credentials!.vaultClusterId,
            vault_path: credentials!.vaultPath,
            version: credentials!.version,
          },
        },
      };
    }
    if (current.status?.phase === 'error')
      throw conflict(`the rotation failed: ${current.status.message ?? 'the server refused'}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw serviceUnavailable('the rotation is under way and has not finished; read the secret again shortly');
}

async function getBackupSchedule({
  params,
  principal,
  store,
  now,
}: AuthenticatedContext<{ params: IdParams }>) {
  const object = await findInOrganization(store, principal, DATABASES, params.id);
  const schedule = object.spec!.backupSchedule;
  if (!schedule) throw notFoundSchedule(params.id);
  return { data: describeSchedule(schedule.cron, schedule.retentionDays, now()) };
}

async function setBackupSchedule({
  params,
  body,
  principal,
  store,
  now,
}: AuthenticatedContext<{ params: IdParams; body: ScheduleBody }>) {
  const problem = cronProblem(body.cron);
  if (problem) throw invalidField(problem);
  const object = await findInOrganization(store, principal, DATABASES, params.id);
  const cron = body.cron.trim().split(/\s+/).join(' ');
  await store.update<Database>(DATABASE, {
    ...object,
    spec: { ...object.spec!, backupSchedule: { cron, retentionDays: body.retention_days } },
  });
  return { data: describeSchedule(cron, body.retention_days, now()) };
}

async function removeBackupSchedule({
  params,
  principal,
  store,
}: AuthenticatedContext<{ params: IdParams }>) {
  const object = await findInOrganization(store, principal, DATABASES, params.id);
  if (!object.spec!.backupSchedule) throw notFoundSchedule(params.id);
  const { backupSchedule: _removed, ...spec } = object.spec!;
  await store.update<Database>(DATABASE, { ...object, spec });
  return {};
}

export const databaseRoutes: RouteModule<DataServiceRouteServices> = {
  area: 'resources',
  routes: [
    defineRoute<{ query: PageQuery }>({
      ...base,
      method: 'get',
      path: '/v1/databases/versions',
      scopes: READ,
      summary: 'The engines and versions offered',
      description:
        'Each engine with the major versions a database may ask for; a version not listed is refused with a 422 ' +
        'naming the field. `mariadb` is another name for the mysql engine, which runs MariaDB.',
      request: { query: { type: 'object', properties: { ...PAGE_QUERY_PROPERTIES } } },
      responses: {
        200: {
          description: 'The engines, in the order of the engine list',
          paginated: true,
          schema: { type: 'array', items: ENGINE_OFFER_BODY },
        },
      },
      handler: listDatabaseVersions,
    }),
    defineRoute<{ query: PageQuery & { engine?: string; status?: DatabasePhase } }>({
      ...base,
      method: 'get',
      path: '/v1/databases',
      scopes: READ,
      summary: "The organization's databases",
      request: {
        query: {
          type: 'object',
          properties: {
            engine: { type: 'string', enum: acceptedEngineNames(), 'x-domain-rule': true },
            status: { type: 'string', enum: STATUSES },
            ...PAGE_QUERY_PROPERTIES,
          },
        },
      },
      responses: {
        200: {
          description: 'Databases, oldest first',
          paginated: true,
          schema: { type: 'array', items: DATABASE_BODY },
        },
      },
      handler: listDatabases,
    }),
    defineRoute<{ body: CreateBody }, DataServiceRouteServices>({
      ...base,
      method: 'post',
      path: '/v1/databases',
      scopes: WRITE,
      summary: 'Create a database',
      description:
        'The database is provisioning until its server answers with the generated credentials, which go to the ' +
        "organization's managed vault cluster at credentials.vault_path (never into a response). An engine this " +
        'machine cannot run is recorded: kept, never available, with a message saying what is missing.',
      request: {
        body: {
          type: 'object',
          required: ['name', 'engine'],
          additionalProperties: false,
          properties: {
            name: NAME,
            engine: {
              type: 'string',
              maxLength: 32,
              description: `One of ${engineList()} (GET /v1/databases/versions)`,
            },
            version: {
              type: 'string',
              maxLength: 16,
              description: "One of the engine's versions (GET /v1/databases/versions); absent: its default",
            },
            plan: { type: 'string', maxLength: 64 },
            storage_gb: {
              type: 'integer',
              minimum: 1,
              maximum: 65_536,
              description: 'Relational and document engines',
              'x-domain-rule': true,
            },
            memory_mb: {
              type: 'integer',
              minimum: 16,
              maximum: 1_048_576,
              description: 'Redis, in MiB',
              'x-domain-rule': true,
            },
          },
        },
      },
      responses: {
        201: { description: 'The new database, provisioning', schema: DATABASE_BODY },
        409: { description: 'A database of that name exists' },
        422: { description: 'Unknown engine or version, or a size the engine does not take' },
        429: { description: 'A quota is reached' },
      },
      handler: createDatabase,
    }),
    defineRoute<{ params: IdParams }>({
      ...base,
      method: 'get',
      path: '/v1/databases/:id',
      scopes: READ,
      summary: 'A database',
      request: { params: ID_PARAMS },
      responses: {
        200: { description: 'The database', schema: DATABASE_BODY },
        404: { description: 'No such database' },
      },
      handler: getDatabase,
    }),
    defineRoute<
      { params: IdParams; body: { storage_gb?: number; memory_mb?: number } },
      DataServiceRouteServices
    >({
      ...base,
      method: 'patch',
      path: '/v1/databases/:id',
      scopes: WRITE,
      summary: 'Grow a database',
      description: 'Storage and memory only grow; asking for less is a 422.',
      request: {
        params: ID_PARAMS,
        body: {
          type: 'object',
          additionalProperties: false,
          minProperties: 1,
          properties: {
            storage_gb: { type: 'integer', minimum: 1, maximum: 65_536, 'x-domain-rule': true },
            memory_mb: { type: 'integer', minimum: 16, maximum: 1_048_576, 'x-domain-rule': true },
          },
        },
      },
      responses: {
        200: { description: 'The database', schema: DATABASE_BODY },
        404: { description: 'No such database' },
        422: { description: 'A shrink, or a size the engine does not take' },
        429: { description: 'The storage quota is reached' },
      },
      handler: growDatabase,
    }),
    defineRoute<{ params: IdParams }>({
      ...base,
      method: 'delete',
      path: '/v1/databases/:id',
      scopes: WRITE,
      summary: 'Delete a database',
      description:
        'Drops the database and its role (or stops its process and removes its files) and removes its secret.',
      request: { params: ID_PARAMS },
      responses: { 204: { description: 'Deleting' }, 404: { description: 'No such database' } },
      handler: deleteDatabase,
    }),
    defineRoute<{ params: IdParams }>({
      ...base,
      method: 'post',
      path: '/v1/databases/:id/credentials/rotate',
      scopes: WRITE,
      summary: "Rotate a database's password",
      description:
        'Answers once the new password is in force: the old one stops working at once, and the secret at ' +
        'credentials.vault_path has a new version.',
      request: { params: ID_PARAMS },
      responses: {
        200: {
          description: 'Where the new credentials are',
          schema: {
            type: 'object',
            properties: {
              credentials: {
                type: 'object',
                properties: {
                  vault_cluster_id: { type: 'string' },
                  vault_path: { type: 'string' },
                  version: { type: 'integer' },
                },
              },
            },
          },
        },
        404: { description: 'No such database' },
        409: { description: 'The database has no credentials to rotate (recorded, or not yet available)' },
      },
      handler: rotateDatabaseCredentials,
    }),
    defineRoute<{ params: IdParams }>({
      ...base,
      method: 'get',
      path: '/v1/databases/:id/backup-schedule',
      scopes: READ,
      summary: "A database's backup schedule",
      request: { params: ID_PARAMS },
      responses: {
        200: { description: 'The schedule', schema: SCHEDULE_BODY },
        404: { description: 'No such database or no schedule' },
      },
      handler: getBackupSchedule,
    }),
    defineRoute<{ params: IdParams; body: ScheduleBody }>({
      ...base,
      method: 'put',
      path: '/v1/databases/:id/backup-schedule',
      scopes: WRITE,
      summary: "Set a database's backup schedule",
      description: 'Five-field cron in UTC; each scheduled backup is kept retention_days, then deleted.',
      request: {
        params: ID_PARAMS,
        body: {
          type: 'object',
          required: ['cron', 'retention_days'],
          additionalProperties: false,
          properties: {
            cron: { type: 'string', minLength: 1, maxLength: 100 },
            retention_days: { type: 'integer', minimum: 1, maximum: 3650, 'x-domain-rule': true },
          },
        },
      },
      responses: {
        200: { description: 'The schedule', schema: SCHEDULE_BODY },
        404: { description: 'No such database' },
        422: { description: 'An invalid cron expression' },
      },
      handler: setBackupSchedule,
    }),
    defineRoute<{ params: IdParams }>({
      ...base,
      method: 'delete',
      path: '/v1/databases/:id/backup-schedule',
      scopes: WRITE,
      summary: "Remove a database's backup schedule",
      description: 'No scheduled backup runs after it; the backups already taken keep their expiry.',
      request: { params: ID_PARAMS },
      responses: {
        204: { description: 'Removed' },
        404: { description: 'No such database or no schedule' },
      },
      handler: removeBackupSchedule,
    }),
  ],
};

function describeSchedule(cron: string, retentionDays: number, now: Date) {
  return { cron, retention_days: retentionDays, next_run_at: nextRun(cron, now)?.toISOString() ?? null };
}

function notFoundSchedule(id: string) {
  return notFound(`database ${id} has no backup schedule`);
}
