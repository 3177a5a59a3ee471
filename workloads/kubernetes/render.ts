/**
 * What a workload is made of in a cluster, as pure functions: workload in, objects out. Names
 * follow Kubernetes (hyphens): `db_0123456789ab` is `db-0123456789ab`. Passwords go into
 * Secrets only; everything else refers to them by key.
 */
import type { KubeObject } from '../../control-plane/types.js';
import { databaseEngine } from '../../crds/database-engines/index.js';
import { WorkloadError, type DatabaseWorkload, type ShareWorkload } from '../runtime.js';
import { kubernetesEngine, tenantEnv, type KubernetesEngine } from './engines/index.js';
import { DATA_VOLUME, kubeName, secretName, tenantName } from './names.js';
import {
  CNPG_BACKUP,
  CNPG_CLUSTER,
  JOB,
  PERSISTENT_VOLUME_CLAIM,
  SECRET,
  SERVICE,
  STATEFUL_SET,
} from './resource-types.js';
import type { BackupStorage, KubernetesSettings } from './settings.js';
import {
  CREDENTIALS_VERSION_ANNOTATION,
  ENGINE_LABEL,
  ORGANIZATION_LABEL,
  WORKLOAD_LABEL,
} from '../../crds/annotations.js';

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

/** The port a database's server listens on, from the engine list. */
export function portOf(workload: DatabaseWorkload): number {
  return databaseEngine(workload.engine).port;
}

/** The in-cluster host of a database: CloudNativePG's read-write Service, or the workload's own. */
export function serviceHost(workload: DatabaseWorkload): string {
  return `${kubernetesEngine(workload.engine).serviceName(workload)}.${workload.organization}.svc`;
}

function labelsOf(id: string, organization: string, engine?: string): Record<string, string> {
  return {
    [MANAGED_BY_LABEL]: 'cloudplane',
    [WORKLOAD_LABEL]: id,
    [ORGANIZATION_LABEL]: organization,
    ...(engine ? { [ENGINE_LABEL]: engine } : {}),
  };
}

function metadataOf(name: string, workload: DatabaseWorkload | ShareWorkload, engine?: string) {
  return {
    name,
    namespace: workload.organization,
    labels: labelsOf(workload.id, workload.organization, engine),
  };
}

/**
 * The image configured for the engine, else the engine's own: `mariadb:10.11` with version `11.4`
 * → `mariadb:11.4`; without a version, as it is.
 */
export function imageOf(settings: KubernetesSettings, workload: DatabaseWorkload): string {
  const configured = settings.images[workload.engine] ?? kubernetesEngine(workload.engine).image;
  if (workload.version === undefined) return configured;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(workload.version)) {
    throw new WorkloadError('UnsupportedVersion', `${JSON.stringify(workload.version)} is not a version`);
  }
  const repository = configured.replace(/:[^:/]+$/, '');
  return `${repository}:${workload.version}`;
}

/** Whether the mysql engine's image is MariaDB's (`mariadb:10.11`, `docker.io/library/mariadb:11.4`). */
export function mariadbImage(image: string): boolean {
  return /(^|\/)mariadb(:[^:/]*)?$/.test(image) && versionOfImage(image) !== undefined;
}

/** The version an image runs, from its tag: `ghcr.io/cloudnative-pg/postgresql:16.4` → `16.4`. */
export function versionOfImage(image: string | undefined): string | undefined {
  return /:(\d+(?:\.\d+)*)[^:/]*$/.exec(image ?? '')?.[1];
}

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/**
 * The workload's only Secret. `username` and `password` are the tenant's (CloudNativePG reads
 * them as a `basic-auth` Secret); `admin-password` is the platform's own, made once.
 */
export function renderSecret(
  workload: DatabaseWorkload,
  password: string,
  adminPassword: string,
): KubeObject {
  const engine = kubernetesEngine(workload.engine);
  const data: Record<string, string> = {
    username: base64(engine.username(workload)),
    password: base64(password),
  };
  for (const [key, value] of Object.entries(engine.secretData(workload, password, adminPassword)))
    data[key] = base64(value);
  return {
    apiVersion: 'v1',
    kind: SECRET.kind,
    metadata: metadataOf(secretName(workload.id), workload, workload.engine),
    type: 'kubernetes.io/basic-auth',
    data,
  } as KubeObject;
}

export function renderPostgresCluster(settings: KubernetesSettings, workload: DatabaseWorkload): KubeObject {
  const name = tenantName(workload.id);
  const { backupStorage } = settings;
  return {
    apiVersion: `${CNPG_CLUSTER.group}/${CNPG_CLUSTER.version}`,
    kind: CNPG_CLUSTER.kind,
    metadata: metadataOf(kubeName(workload.id), workload, workload.engine),
    spec: {
      instances: settings.postgresInstances,
      imageName: imageOf(settings, workload),
      storage: { size: `${workload.storageGb ?? 1}Gi` },
      bootstrap: { initdb: { database: name, owner: name, secret: { name: secretName(workload.id) } } },
      ...(backupStorage.postgresqlMethod !== 'dump' && backupStorage.cnpgBackup
        ? { backup: backupStorage.cnpgBackup }
        : {}),
    },
  };
}

/** The size of a database's data claim, as its engine takes it. */
export function storageGbOf(workload: DatabaseWorkload): number {
  return kubernetesEngine(workload.engine).storageGb(workload);
}

/** The server container of an engine run as a StatefulSet. */
function serverContainer(settings: KubernetesSettings, workload: DatabaseWorkload, engine: KubernetesEngine) {
  if (!engine.container) throw new Error(`${engine.name} does not run as a StatefulSet`);
  const port = portOf(workload);
  return {
    name: workload.engine,
    image: imageOf(settings, workload),
    ports: [{ name: workload.engine, containerPort: port }],
    ...engine.container(workload),
  };
}

/**
 * MariaDB, Redis and MongoDB: one pod with its claim. `credentialsVersion` (the Secret's
 * resourceVersion) restarts the pod when the password changes, since each server reads it at start.
 */
export function renderStatefulSet(
  settings: KubernetesSettings,
  workload: DatabaseWorkload,
  credentialsVersion: string,
): KubeObject {
  const name = kubeName(workload.id);
  const labels = labelsOf(workload.id, workload.organization, workload.engine);
  const engine = kubernetesEngine(workload.engine);
  const volumes = engine.volumes?.(workload) ?? [];
  return {
    apiVersion: `${STATEFUL_SET.group}/${STATEFUL_SET.version}`,
    kind: STATEFUL_SET.kind,
    metadata: metadataOf(name, workload, workload.engine),
    spec: {
      serviceName: name,
      replicas: 1,
      selector: { matchLabels: { [WORKLOAD_LABEL]: workload.id } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
      template: {
        metadata: { labels, annotations: { [CREDENTIALS_VERSION_ANNOTATION]: credentialsVersion } },
        spec: { containers: [serverContainer(settings, workload, engine)], volumes },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: DATA_VOLUME, labels },
          spec: claimSpec('ReadWriteOnce', `${storageGbOf(workload)}Gi`, undefined),
        },
      ],
    },
  };
}

export function renderService(workload: DatabaseWorkload): KubeObject {
  const port = portOf(workload);
  return {
    apiVersion: 'v1',
    kind: SERVICE.kind,
    metadata: metadataOf(kubeName(workload.id), workload, workload.engine),
    spec: {
      type: 'ClusterIP',
      selector: { [WORKLOAD_LABEL]: workload.id },
      ports: [{ name: workload.engine, port, targetPort: port }],
    },
  };
}

function claimSpec(accessMode: string, size: string, storageClass: string | undefined) {
  return {
    accessModes: [accessMode],
    resources: { requests: { storage: size } },
    ...(storageClass ? { storageClassName: storageClass } : {}),
  };
}

/** A share: a ReadWriteMany claim the organization's pods mount by name. */
export function renderShareClaim(settings: KubernetesSettings, share: ShareWorkload): KubeObject {
  return {
    apiVersion: 'v1',
    kind: PERSISTENT_VOLUME_CLAIM.kind,
    metadata: metadataOf(kubeName(share.id), share),
    spec: claimSpec('ReadWriteMany', `${share.sizeGb}Gi`, settings.storageClass),
  };
}

/** The claim dumps of one namespace are written to. */
export function renderBackupClaim(storage: BackupStorage, namespace: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: PERSISTENT_VOLUME_CLAIM.kind,
    metadata: { name: storage.claimName, namespace, labels: { [MANAGED_BY_LABEL]: 'cloudplane' } },
    spec: claimSpec(storage.accessMode, storage.claimSize, storage.storageClass),
  };
}

export function renderCnpgBackup(
  storage: BackupStorage,
  workload: DatabaseWorkload,
  backupId: string,
): KubeObject {
  return {
    apiVersion: `${CNPG_BACKUP.group}/${CNPG_BACKUP.version}`,
    kind: CNPG_BACKUP.kind,
    metadata: metadataOf(kubeName(backupId), workload, workload.engine),
    spec: { cluster: { name: kubeName(workload.id) }, method: storage.postgresqlMethod },
  };
}

/** Where a dump Job mounts the backup claim. */
export const BACKUPS_MOUNT = '/backups';
/** Where a share Job mounts the share. */
export const SHARE_MOUNT = '/share';

/** What a one-shot Job does: a shell script in an image, with the Secrets and claims it needs. */
export interface JobPlan {
  name: string;
  namespace: string;
  image: string;
  script: string;
  env: unknown[];
  /** Claim name → mount path. */
  claims: Record<string, string>;
  labels: Record<string, string>;
}

/** A Job that runs once; its script reports what it measured as the pod's termination message. */
export function renderJob(plan: JobPlan): KubeObject {
  const volumes = Object.keys(plan.claims).map((claim, index) => ({
    name: `volume-${index}`,
    persistentVolumeClaim: { claimName: claim },
  }));
  const volumeMounts = Object.values(plan.claims).map((mountPath, index) => ({
    name: `volume-${index}`,
    mountPath,
  }));
  return {
    apiVersion: `${JOB.group}/${JOB.version}`,
    kind: JOB.kind,
    metadata: { name: plan.name, namespace: plan.namespace, labels: plan.labels },
    spec: {
      backoffLimit: 2,
      template: {
        metadata: { labels: plan.labels },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'run',
              image: plan.image,
              command: ['sh', '-euc', plan.script],
              env: plan.env,
              volumeMounts,
              terminationMessagePath: '/dev/termination-log',
            },
          ],
          volumes,
        },
      },
    },
  };
}

/** Writes the size of `file` as the termination message: how a Job answers the runtime. */
export const reportSize = (file: string) => `stat -c %s "${file}" > /dev/termination-log`;

/** The shell commands that dump a database to `file` and load it back, with the Secret's env. */
export function dumpScript(workload: DatabaseWorkload, file: string): string {
  const partial = `${file}.partial`;
  const place = { host: serviceHost(workload), port: portOf(workload), file: partial };
  const dump = kubernetesEngine(workload.engine).dumpCommand(place);
  return `${dump}\nmv "${partial}" "${file}"\n${reportSize(file)}`;
}

/** Loads a dump of `sourceId` into `target`, replacing what it holds; Redis has no such load. */
export function loadScript(target: DatabaseWorkload, sourceId: string, file: string): string {
  const place = { host: serviceHost(target), port: portOf(target), file, sourceId };
  const command = kubernetesEngine(target.engine).loadCommand(place);
  return `test -f "${file}" || { echo "the backup file is gone" > /dev/termination-log; exit 1; }\n${command}`;
}

/** The tenant's login a dump or load Job gets. */
export function jobEnv(workload: DatabaseWorkload): unknown[] {
  return tenantEnv(workload, kubernetesEngine(workload.engine).database(workload));
}
