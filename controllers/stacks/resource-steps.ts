/**
 * The infrastructure phase: a template's `database` and `cache` resources become `Database`
 * objects owned by the stack, reconciled by the data-services controllers like any other. The
 * step waits until the database is available (or only recorded, which it says).
 */
import { API_VERSION } from '../../control-plane/kind-descriptor.js';
import { isStoreError } from '../../control-plane/types.js';
import { ownerReference } from '../../control-plane/owner-references.js';
import {
  DATABASE,
  type Database,
  type DatabaseSpec,
  type DatabaseVersion,
} from '../../crds/data-services.js';
import { engineNamed } from '../../crds/database-engines/index.js';
import { removeEntry, saveEntry } from './records.js';
import { digestOf, StepFailure, type StepContext, type StepOutcome } from './step-context.js';
import { entryReplaced } from './plan.js';
import { memoryMbOf, storageGbOf, type TemplateResource } from './template.js';
import { restIdOf } from '../../crds/ids.js';
import { EPOCH_ANNOTATION, STACK_LABEL } from '../../crds/annotations.js';

const POLL_MS = 1_000;

/**
 * The Database a resource becomes. Its name carries an epoch that goes up each time the resource
 * is replaced (another type, engine or version, a smaller size), so a replacement is a new
 * database and the old one is removed; a change made in place keeps the name.
 */
function desiredDatabase(context: StepContext, name: string, resource: TemplateResource): Database {
  const properties = (resource.properties ?? {}) as { engine?: string; version?: string };
  // Validation let only engines the platform offers through, under their own name or an alias.
  const engine = engineNamed(
    resource.type === 'cache' ? (properties.engine ?? 'redis') : properties.engine!,
  )!;
  const { stack } = context;
  const previous = context.entries.get(`resources.${name}`);
  const previousEpoch = Number(previous?.attributes.epoch ?? 0);
  const epoch =
    previous && entryReplaced('resources', previous.config, resource) ? previousEpoch + 1 : previousEpoch;
  const identity = digestOf([stack.metadata.uid, name, epoch]);
  const storageGb = resource.type === 'cache' ? undefined : storageGbOf(resource);
  const memoryMb = resource.type === 'cache' ? memoryMbOf(resource) : undefined;
  const spec: DatabaseSpec = {
    name: `${stack.spec!.name}-${name}`,
    engine,
    ...(properties.version === undefined ? {} : { version: String(properties.version) as DatabaseVersion }),
    ...(storageGb === undefined ? {} : { storageGb }),
    ...(memoryMb === undefined ? {} : { memoryMb }),
  };
  return {
    apiVersion: API_VERSION,
    kind: DATABASE.kind,
    metadata: {
      name: `db-${identity.slice(0, 12)}`,
      namespace: context.key.namespace,
      labels: { [STACK_LABEL]: stack.metadata.name },
      annotations: { [EPOCH_ANNOTATION]: String(epoch) },
      ownerReferences: [ownerReference(stack)],
    },
    spec,
  };
}

async function readDatabase(context: StepContext, name: string): Promise<Database | undefined> {
  try {
    return await context.store.get<Database>(DATABASE, context.key.namespace, name);
  } catch (error) {
    if (isStoreError(error, 'NotFound')) return undefined;
    throw error;
  }
}

/** Grows what may grow in place; a smaller size is a replacement the plan shows. */
function grown(current: DatabaseSpec, desired: DatabaseSpec): DatabaseSpec | undefined {
  const storageGb = Math.max(current.storageGb ?? 0, desired.storageGb ?? 0) || undefined;
  const memoryMb = Math.max(current.memoryMb ?? 0, desired.memoryMb ?? 0) || undefined;
  if (storageGb === current.storageGb && memoryMb === current.memoryMb) return undefined;
  return {
    ...current,
    ...(storageGb === undefined ? {} : { storageGb }),
    ...(memoryMb === undefined ? {} : { memoryMb }),
  };
}

/** Asks for the database to go; done once it is gone from the store. */
async function removeDatabase(context: StepContext, objectName: string): Promise<boolean> {
  const existing = await readDatabase(context, objectName);
  if (!existing) return true;
  if (!existing.metadata.deletionTimestamp) {
    await context.store.delete(DATABASE, context.key.namespace, objectName).catch((error: unknown) => {
      if (!isStoreError(error, 'NotFound')) throw error;
    });
  }
  return false;
}

export async function applyResource(
  context: StepContext,
  name: string,
  resource: TemplateResource,
): Promise<StepOutcome> {
  const desired = desiredDatabase(context, name, resource);
  const objectName = desired.metadata.name;
  const previous = context.entries.get(`resources.${name}`);
  const previousObject = previous?.attributes.object;
  if (previousObject && previousObject !== objectName && !(await removeDatabase(context, previousObject))) {
    return { state: 'waiting', afterMs: POLL_MS, message: `replacing: waiting for ${previousObject} to go` };
  }

  let database = await readDatabase(context, objectName);
  if (database?.metadata.deletionTimestamp) {
    return { state: 'waiting', afterMs: POLL_MS, message: `waiting for the earlier ${objectName} to go` };
  }
  if (!database) {
    try {
      database = await context.store.create<Database>(DATABASE, desired);
    } catch (error) {
      if (!isStoreError(error, 'AlreadyExists')) throw error;
      return { state: 'waiting', afterMs: POLL_MS };
    }
  } else {
    const spec = grown(database.spec!, desired.spec!);
    if (spec) database = await context.store.update<Database>(DATABASE, { ...database, spec });
  }

  const status = database.status;
  const current = status?.observedGeneration === database.metadata.generation;
  const phase = current ? status?.phase : undefined;
  if (phase === 'error') {
    const reason =
      status?.message ?? status?.conditions?.find((condition) => condition.type === 'Ready')?.message;
    throw new StepFailure(`resources.${name}: ${reason ?? 'the database could not be made'}`);
  }
  if (phase !== 'available' && phase !== 'recorded' && phase !== 'degraded') {
    return { state: 'waiting', afterMs: POLL_MS, message: `waiting for database ${restIdOf(objectName)}` };
  }
  const endpoint = status?.endpoint;
  await saveEntry(
    context.database,
    context.key,
    {
      section: 'resources',
      name,
      config: resource,
      attributes: {
        id: restIdOf(objectName),
        object: objectName,
        epoch: database.metadata.annotations?.[EPOCH_ANNOTATION] ?? '0',
        status: phase,
        engine: database.spec!.engine,
        ...(endpoint
          ? {
              endpoint: `${endpoint.host}:${endpoint.port}`,
              host: endpoint.host,
              port: String(endpoint.port),
            }
          : {}),
        ...(status?.message ? { message: status.message } : {}),
      },
    },
    context.clock.now(),
  );
  return { state: 'done', ...(phase === 'available' ? {} : { message: status?.message ?? phase }) };
}

export async function removeResource(context: StepContext, name: string): Promise<StepOutcome> {
  const entry = context.entries.get(`resources.${name}`);
  const objectName = entry?.attributes.object;
  if (objectName && !(await removeDatabase(context, objectName))) {
    return {
      state: 'waiting',
      afterMs: POLL_MS,
      message: `waiting for database ${restIdOf(objectName)} to go`,
    };
  }
  await removeEntry(context.database, context.key, 'resources', name);
  return { state: 'done' };
}

/** Keeps the stack's databases when the stack goes without destroying them: they lose their owner. */
export async function orphanDatabases(context: Pick<StepContext, 'store' | 'key'>): Promise<string[]> {
  const { items } = await context.store.list<Database>(DATABASE, {
    namespace: context.key.namespace,
    labelSelector: `${STACK_LABEL}=${context.key.stack}`,
  });
  for (const database of items) {
    const { [STACK_LABEL]: _removed, ...labels } = database.metadata.labels ?? {};
    await context.store.update<Database>(DATABASE, {
      ...database,
      metadata: { ...database.metadata, labels, ownerReferences: [] },
    });
  }
  return items.map((database) => restIdOf(database.metadata.name));
}
