/**
 * Databases in a cluster: PostgreSQL as a CloudNativePG Cluster, MariaDB, Redis and MongoDB as a
 * StatefulSet with a Service; each with one Secret that holds its password. Everything lives in
 * the organization's namespace and is read back from there: no replica keeps state of its own.
 */
import { randomBytes } from 'node:crypto';
import type { KubeObject, ObjectStore } from '../../control-plane/types.js';
import type { Logger } from '../../observability/logger.js';
import {
  WorkloadError,
  type BackupArtifact,
  type DatabaseAccess,
  type DatabaseObservation,
  type DatabaseRuntime,
  type DatabaseWorkload,
} from '../runtime.js';
import { dumpFileName, locationOf, placeOf } from './artifacts.js';
import { sleep, waitFor, type JobRunner } from './jobs.js';
import { apply, read, refused, removeObject } from './objects.js';
import { cnpgBackupOutcome, databaseObservation, secretValue, type SecretObject } from './readiness.js';
import { kubernetesEngine } from './engines/index.js';
import { dataClaimName, kubeName, secretName } from './names.js';
import {
  BACKUPS_MOUNT,
  dumpScript,
  imageOf,
  jobEnv,
  loadScript,
  portOf,
  renderBackupClaim,
  renderCnpgBackup,
  renderPostgresCluster,
  renderSecret,
  renderService,
  renderStatefulSet,
  serviceHost,
  storageGbOf,
  mariadbImage,
  versionOfImage,
} from './render.js';
import {
  CNPG_BACKUP,
  CNPG_CLUSTER,
  PERSISTENT_VOLUME_CLAIM,
  SECRET,
  SERVICE,
  STATEFUL_SET,
} from './resource-types.js';
import type { KubernetesSettings } from './settings.js';
import { WORKLOAD_LABEL } from '../../crds/annotations.js';

export function accessOf(workload: DatabaseWorkload, password: string): DatabaseAccess {
  const engine = kubernetesEngine(workload.engine);
  const host = serviceHost(workload);
  const port = portOf(workload);
  const username = engine.username(workload);
  const database = engine.database(workload);
  const login = `${encodeURIComponent(username)}:${encodeURIComponent(password)}@${host}:${port}`;
  return { host, port, username, database, connectionString: engine.connectionString(login, database) };
}

/** Whether a database runs as a CloudNativePG Cluster rather than a StatefulSet of ours. */
const onCloudNativePg = (workload: DatabaseWorkload): boolean =>
  kubernetesEngine(workload.engine).runsAs === 'CloudNativePG';

/** `10Gi` → 10; what this runtime writes, so other units are not expected. */
const gibibytes = (quantity: string | undefined): number =>
  Number(/^(\d+)Gi$/.exec(quantity ?? '')?.[1] ?? 0);

export function kubernetesDatabases(
  store: ObjectStore,
  logger: Logger,
  settings: KubernetesSettings,
  jobs: JobRunner,
): DatabaseRuntime {
  const timing = { timeoutMs: settings.jobTimeoutMs, pollIntervalMs: settings.pollIntervalMs };

  async function ensureSecret(workload: DatabaseWorkload, password: string): Promise<SecretObject> {
    const existing = await read<SecretObject>(store, SECRET, workload.organization, secretName(workload.id));
    const adminPassword = secretValue(existing, 'admin-password') ?? randomBytes(24).toString('base64url');
    const secret = renderSecret(workload, password, adminPassword) as SecretObject;
    const written = await apply(store, SECRET, secret, (object) => ({ data: (object as SecretObject).data }));
    if (existing && secretValue(existing, 'password') !== password) {
      logger.info({ database: workload.id }, 'database password changed in its Secret');
    }
    return written;
  }

  /** The StatefulSet's claim is grown in place: its template cannot change after creation. */
  async function growClaim(workload: DatabaseWorkload): Promise<void> {
    const name = dataClaimName(workload.id);
    const claim = await read(store, PERSISTENT_VOLUME_CLAIM, workload.organization, name);
    const spec = claim?.spec as { resources?: { requests?: { storage?: string } } } | undefined;
    const wanted = storageGbOf(workload);
    if (!claim || gibibytes(spec?.resources?.requests?.storage) >= wanted) return;
    await store
      .patch(PERSISTENT_VOLUME_CLAIM, workload.organization, name, {
        spec: { resources: { requests: { storage: `${wanted}Gi` } } },
      })
      .catch(refused(`grow the storage of ${workload.id}`));
    logger.info({ database: workload.id, storageGb: wanted }, 'database storage grown');
  }

  async function converge(workload: DatabaseWorkload, password: string): Promise<void> {
    const secret = await ensureSecret(workload, password);
    if (onCloudNativePg(workload)) {
      // bootstrap is only read when the Cluster is made; the rest follows the workload.
      await apply(store, CNPG_CLUSTER, renderPostgresCluster(settings, workload), (cluster) => {
        const { bootstrap: _bootstrap, ...changeable } = cluster.spec as Record<string, unknown>;
        return { spec: changeable };
      });
      return;
    }
    await apply(store, SERVICE, renderService(workload), (service) => {
      const { ports, selector } = service.spec as Record<string, unknown>;
      return { spec: { ports, selector } };
    });
    const statefulSet = renderStatefulSet(settings, workload, secret.metadata.resourceVersion ?? '');
    await apply(store, STATEFUL_SET, statefulSet, (object) => {
      const { template, replicas, persistentVolumeClaimRetentionPolicy } = object.spec as Record<
        string,
        unknown
      >;
      return { spec: { template, replicas, persistentVolumeClaimRetentionPolicy } };
    });
    await growClaim(workload);
  }

  async function observe(workload: DatabaseWorkload, password: string): Promise<DatabaseObservation> {
    const namespace = workload.organization;
    const name = kubeName(workload.id);
    const { runsAs } = kubernetesEngine(workload.engine);
    const [secret, server, service] = await Promise.all([
      read<SecretObject>(store, SECRET, namespace, secretName(workload.id)),
      read(store, runsAs === 'CloudNativePG' ? CNPG_CLUSTER : STATEFUL_SET, namespace, name),
      runsAs === 'CloudNativePG' ? Promise.resolve(undefined) : read(store, SERVICE, namespace, name),
    ]);
    const image = imageOf(settings, workload);
    const imageVersion = mariadbImage(image) ? `${versionOfImage(image)}-MariaDB` : versionOfImage(image);
    return databaseObservation(
      {
        secret,
        server,
        service,
        runsAs,
        ...(imageVersion ? { imageVersion } : {}),
      },
      password,
      accessOf(workload, password),
    );
  }

  async function observeUntilReady(
    workload: DatabaseWorkload,
    password: string,
  ): Promise<DatabaseObservation> {
    const deadline = Date.now() + settings.readyWaitMs;
    for (;;) {
      const observation = await observe(workload, password);
      if (observation.state === 'ready' || Date.now() >= deadline) return observation;
      await sleep(settings.pollIntervalMs);
    }
  }

  async function ensureBackupClaim(namespace: string): Promise<void> {
    const claim = renderBackupClaim(settings.backupStorage, namespace);
    if (await read(store, PERSISTENT_VOLUME_CLAIM, namespace, claim.metadata.name)) return;
    await store.create(PERSISTENT_VOLUME_CLAIM, claim).catch((error: unknown) => {
      if ((error as { reason?: string }).reason !== 'AlreadyExists') refused('make the backup claim')(error);
    });
  }

  async function cnpgBackup(workload: DatabaseWorkload, backupId: string): Promise<BackupArtifact> {
    const backup = renderCnpgBackup(settings.backupStorage, workload, backupId);
    const { namespace, name } = backup.metadata;
    if (!(await read(store, CNPG_BACKUP, namespace!, name))) {
      await store.create(CNPG_BACKUP, backup).catch(refused(`start CloudNativePG backup ${name}`));
    }
    const outcome = await waitFor(
      () => store.get<KubeObject>(CNPG_BACKUP, namespace, name).then(cnpgBackupOutcome),
      { ...timing, reason: 'BackupFailed', what: `CloudNativePG backup ${name}` },
    );
    if (!outcome.succeeded)
      throw new WorkloadError('BackupFailed', `CloudNativePG backup ${name} failed: ${outcome.reason}`);
    logger.info(
      { database: workload.id, backup: backupId, method: settings.backupStorage.postgresqlMethod },
      'CloudNativePG backup completed',
    );
    // CloudNativePG reports no size for a backup; the artifact says so with 0.
    return { location: locationOf({ kind: 'cnpg', namespace: namespace!, name }), sizeBytes: 0 };
  }

  return {
    async ensure(workload, password) {
      await converge(workload, password);
      return observeUntilReady(workload, password);
    },

    observe,

    async remove(workload) {
      const namespace = workload.organization;
      const name = kubeName(workload.id);
      if (onCloudNativePg(workload)) {
        await removeObject(store, CNPG_CLUSTER, namespace, name);
      } else {
        await removeObject(store, STATEFUL_SET, namespace, name);
        await removeObject(store, SERVICE, namespace, name);
        await removeObject(store, PERSISTENT_VOLUME_CLAIM, namespace, dataClaimName(workload.id));
      }
      await removeObject(store, SECRET, namespace, secretName(workload.id));
      logger.info({ database: workload.id }, 'database objects removed');
    },

    async backup(workload, _password, backupId) {
      if (onCloudNativePg(workload) && settings.backupStorage.postgresqlMethod !== 'dump') {
        return cnpgBackup(workload, backupId);
      }
      const namespace = workload.organization;
      const { claimName } = settings.backupStorage;
      await ensureBackupClaim(namespace);
      const extension = kubernetesEngine(workload.engine).dumpExtension;
      const file = dumpFileName(backupId, workload.engine, workload.id, extension);
      const size = await jobs.run(
        {
          name: `${kubeName(backupId)}-dump`,
          namespace,
          image: imageOf(settings, workload),
          script: dumpScript(workload, `${BACKUPS_MOUNT}/${file}`),
          env: jobEnv(workload),
          claims: { [claimName]: BACKUPS_MOUNT },
          labels: { [WORKLOAD_LABEL]: workload.id },
        },
        'BackupFailed',
      );
      logger.info({ database: workload.id, backup: backupId }, 'database dumped to the backup claim');
      return {
        location: locationOf({
          kind: 'dump',
          namespace,
          claim: claimName,
          file,
          engine: workload.engine,
          sourceId: workload.id,
        }),
        sizeBytes: Number(size ?? 0),
      };
    },

    async restore(artifact, target, _password) {
      const place = placeOf(artifact.location);
      if (place.kind === 'cnpg') {
        throw new WorkloadError(
          'RestoreUnsupported',
          'CloudNativePG restores a backup only into a new Cluster (bootstrap.recovery); restoring into an existing database is not done',
        );
      }
      if (place.engine !== target.engine) {
        throw new WorkloadError(
          'InvalidBackup',
          `a ${place.engine} backup cannot be restored into a ${target.engine} database`,
        );
      }
      if (place.namespace !== target.organization) {
        throw new WorkloadError('InvalidBackup', 'the backup is kept in another organization’s namespace');
      }
      await jobs.run(
        {
          name: `${kubeName(place.file.split('--')[0]!)}-restore-${kubeName(target.id)}`,
          namespace: place.namespace,
          image: imageOf(settings, target),
          script: loadScript(target, place.sourceId, `${BACKUPS_MOUNT}/${place.file}`),
          env: jobEnv(target),
          claims: { [place.claim]: BACKUPS_MOUNT },
          labels: { [WORKLOAD_LABEL]: target.id },
        },
        'RestoreFailed',
      );
      logger.info({ database: target.id }, 'database restored from a dump');
    },
  };
}
