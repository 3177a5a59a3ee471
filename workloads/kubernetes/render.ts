/**
 * What a workload is made of in a cluster, as pure functions: workload in, objects out. Names
 * follow Kubernetes (hyphens): `db_0123456789ab` is `db-0123456789ab`. Passwords go into
 * Secrets only; everything else refers to them by key.
 */
import type { KubeObject } from '../../control-plane/types.js';
import { WorkloadError, type DatabaseEngine, type DatabaseWorkload, type ShareWorkload } from '../runtime.js';
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

/** The account the platform keeps for itself in MariaDB and MongoDB servers. */
export const ADMIN_USER = 'cloudplane_admin';
const DATA_VOLUME = 'data';

/** A platform id as a Kubernetes name: `db_0123456789ab` → `db-0123456789ab`. */
export function kubeName(id: string): string {
  const name = id.replace(/_/g, '-');
  if (!/^[a-z]([a-z0-9-]{0,40}[a-z0-9])?$/.test(name)) {
    throw new WorkloadError('InvalidName', `${JSON.stringify(id)} cannot name a Kubernetes object`);
  }
  return name;
}

/** The user and database name inside the engine: the id as is (a valid SQL and MongoDB name). */
export function tenantName(id: string): string {
  if (!/^[a-z][a-z0-9_]{0,31}$/.test(id)) {
    throw new WorkloadError('InvalidName', `${JSON.stringify(id)} cannot name a database or a user`);
  }
  return id;
}

export const secretName = (id: string): string => `${kubeName(id)}-credentials`;
/** The claim a StatefulSet's only pod gets from its `data` template. */
export const dataClaimName = (id: string): string => `${DATA_VOLUME}-${kubeName(id)}-0`;

export const ENGINE_PORTS: Record<DatabaseEngine, number> = {
  postgresql: 5432,
  mysql: 3306,
  redis: 6379,
  mongodb: 27017,
};

/** The in-cluster host of a database: CloudNativePG's read-write Service, or the workload's own. */
export function serviceHost(workload: DatabaseWorkload): string {
  const service = workload.engine === 'postgresql' ? `${kubeName(workload.id)}-rw` : kubeName(workload.id);
  return `${service}.${workload.organization}.svc`;
}

export function usernameOf(workload: DatabaseWorkload): string {
  return workload.engine === 'redis' ? 'default' : tenantName(workload.id);
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

/** `mariadb:10.11` with version `11.4` → `mariadb:11.4`; without a version, as configured. */
export function imageOf(settings: KubernetesSettings, workload: DatabaseWorkload): string {
  const configured = settings.images[workload.engine];
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

/** A quoted SQL string literal for MariaDB. */
function sqlString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Run by `mariadbd --init-file` at every start: the tenant's database, user and current password. */
export function mariadbInitSql(workload: DatabaseWorkload, password: string): string {
  const name = tenantName(workload.id);
  const user = `'${name}'@'%'`;
  return [
    `CREATE DATABASE IF NOT EXISTS \`${name}\`;`,
    `CREATE USER IF NOT EXISTS ${user} IDENTIFIED BY ${sqlString(password)};`,
    `ALTER USER ${user} IDENTIFIED BY ${sqlString(password)};`,
    `GRANT ALL PRIVILEGES ON \`${name}\`.* TO ${user};`,
    '',
  ].join('\n');
}

/**
 * The workload's only Secret. `username` and `password` are the tenant's (CloudNativePG reads
 * them as a `basic-auth` Secret); `admin-password` is the platform's own, made once.
 */
export function renderSecret(
  workload: DatabaseWorkload,
  password: string,
  adminPassword: string,
): KubeObject {
  const data: Record<string, string> = { username: base64(usernameOf(workload)), password: base64(password) };
  if (workload.engine === 'mysql' || workload.engine === 'mongodb')
    data['admin-password'] = base64(adminPassword);
  if (workload.engine === 'mysql') data['init.sql'] = base64(mariadbInitSql(workload, password));
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

/** Redis keeps its append-only files on disk: twice its memory, at least 1 GiB. */
export function storageGbOf(workload: DatabaseWorkload): number {
  if (workload.engine === 'redis') return Math.max(1, Math.ceil(((workload.memoryMb ?? 64) * 2) / 1024));
  return workload.storageGb ?? 1;
}

const fromSecret = (workload: DatabaseWorkload, name: string, key: string) => ({
  name,
  valueFrom: { secretKeyRef: { name: secretName(workload.id), key } },
});

function tenantEnv(workload: DatabaseWorkload) {
  return [
    fromSecret(workload, 'TENANT_USER', 'username'),
    fromSecret(workload, 'TENANT_PASSWORD', 'password'),
    { name: 'TENANT_DATABASE', value: workload.engine === 'redis' ? '0' : tenantName(workload.id) },
  ];
}

const exec = (script: string) => ({ exec: { command: ['sh', '-c', script] } });
const probe = (script: string) => ({
  ...exec(script),
  periodSeconds: 5,
  timeoutSeconds: 5,
  failureThreshold: 3,
});

/** Creates the tenant's user, or sets its password, once the server takes the admin's login. */
const MONGO_TENANT_SCRIPT = [
  'const d = db.getSiblingDB(process.env.TENANT_DATABASE);',
  'const u = process.env.TENANT_USER; const p = process.env.TENANT_PASSWORD;',
  "if (d.getUser(u)) d.updateUser(u, { pwd: p }); else d.createUser({ user: u, pwd: p, roles: [{ role: 'dbOwner', db: d.getName() }] });",
].join(' ');

/** The server container of an engine run as a StatefulSet. */
function serverContainer(settings: KubernetesSettings, workload: DatabaseWorkload) {
  const image = imageOf(settings, workload);
  const port = ENGINE_PORTS[workload.engine];
  const common = { name: workload.engine, image, ports: [{ name: workload.engine, containerPort: port }] };
  switch (workload.engine) {
    case 'mysql':
      return {
        ...common,
        args: ['--init-file=/etc/cloudplane/init.sql'],
        env: [fromSecret(workload, 'MARIADB_ROOT_PASSWORD', 'admin-password'), ...tenantEnv(workload)],
        readinessProbe: probe(
          'MYSQL_PWD="$TENANT_PASSWORD" mariadb -h 127.0.0.1 -u "$TENANT_USER" -e "SELECT 1" "$TENANT_DATABASE"',
        ),
        volumeMounts: [
          { name: DATA_VOLUME, mountPath: '/var/lib/mysql' },
          { name: 'init', mountPath: '/etc/cloudplane', readOnly: true },
        ],
      };
    case 'redis':
      return {
        ...common,
        command: ['sh', '-c'],
        args: [
          `exec redis-server --dir /data --appendonly yes --maxmemory ${workload.memoryMb ?? 64}mb --requirepass "$TENANT_PASSWORD"`,
        ],
        env: tenantEnv(workload),
        readinessProbe: probe('REDISCLI_AUTH="$TENANT_PASSWORD" redis-cli ping | grep -q PONG'),
        volumeMounts: [{ name: DATA_VOLUME, mountPath: '/data' }],
      };
    case 'mongodb':
      return {
        ...common,
        env: [
          { name: 'MONGO_INITDB_ROOT_USERNAME', value: ADMIN_USER },
          fromSecret(workload, 'MONGO_INITDB_ROOT_PASSWORD', 'admin-password'),
          ...tenantEnv(workload),
        ],
        lifecycle: {
          postStart: exec(
            `until mongosh --quiet -u "$MONGO_INITDB_ROOT_USERNAME" -p "$MONGO_INITDB_ROOT_PASSWORD" --authenticationDatabase admin --eval "${MONGO_TENANT_SCRIPT}"; do sleep 2; done`,
          ),
        },
        readinessProbe: probe(
          'mongosh --quiet "mongodb://127.0.0.1:27017/$TENANT_DATABASE" -u "$TENANT_USER" -p "$TENANT_PASSWORD" --eval "db.runCommand({ ping: 1 }).ok"',
        ),
        volumeMounts: [{ name: DATA_VOLUME, mountPath: '/data/db' }],
      };
    case 'postgresql':
      throw new Error('PostgreSQL runs as a CloudNativePG Cluster, not a StatefulSet');
  }
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
  const volumes =
    workload.engine === 'mysql'
      ? [
          {
            name: 'init',
            secret: { secretName: secretName(workload.id), items: [{ key: 'init.sql', path: 'init.sql' }] },
          },
        ]
      : [];
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
        spec: { containers: [serverContainer(settings, workload)], volumes },
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
  const port = ENGINE_PORTS[workload.engine];
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
  const host = serviceHost(workload);
  const port = ENGINE_PORTS[workload.engine];
  const partial = `${file}.partial`;
  const dump: Record<DatabaseEngine, string> = {
    postgresql: `PGPASSWORD="$TENANT_PASSWORD" pg_dump -Fc -h ${host} -p ${port} -U "$TENANT_USER" -d "$TENANT_DATABASE" -f "${partial}"`,
    mysql: `MYSQL_PWD="$TENANT_PASSWORD" mariadb-dump -h ${host} -P ${port} -u "$TENANT_USER" --single-transaction --routines "$TENANT_DATABASE" > "${partial}"`,
    redis: `REDISCLI_AUTH="$TENANT_PASSWORD" redis-cli -h ${host} -p ${port} --rdb "${partial}"`,
    mongodb: `mongodump --quiet --host ${host} --port ${port} -u "$TENANT_USER" -p "$TENANT_PASSWORD" --authenticationDatabase "$TENANT_DATABASE" --db "$TENANT_DATABASE" --archive="${partial}" --gzip`,
  };
  return `${dump[workload.engine]}\nmv "${partial}" "${file}"\n${reportSize(file)}`;
}

/** Loads a dump of `sourceId` into `target`, replacing what it holds; Redis has no such load. */
export function loadScript(target: DatabaseWorkload, sourceId: string, file: string): string {
  const host = serviceHost(target);
  const port = ENGINE_PORTS[target.engine];
  const load: Record<DatabaseEngine, string | undefined> = {
    postgresql: `PGPASSWORD="$TENANT_PASSWORD" pg_restore --clean --if-exists --no-owner --no-acl -h ${host} -p ${port} -U "$TENANT_USER" -d "$TENANT_DATABASE" "${file}"`,
    mysql: `MYSQL_PWD="$TENANT_PASSWORD" mariadb -h ${host} -P ${port} -u "$TENANT_USER" "$TENANT_DATABASE" < "${file}"`,
    redis: undefined,
    mongodb: `mongorestore --quiet --host ${host} --port ${port} -u "$TENANT_USER" -p "$TENANT_PASSWORD" --authenticationDatabase "$TENANT_DATABASE" --drop --archive="${file}" --gzip --nsFrom "${tenantName(sourceId)}.*" --nsTo "$TENANT_DATABASE.*"`,
  };
  const command = load[target.engine];
  if (!command) {
    throw new WorkloadError(
      'RestoreUnsupported',
      'a Redis snapshot cannot be loaded into a running Redis server in a cluster; this version does not restore Redis backups',
    );
  }
  return `test -f "${file}" || { echo "the backup file is gone" > /dev/termination-log; exit 1; }\n${command}`;
}

export function jobEnv(workload: DatabaseWorkload): unknown[] {
  return tenantEnv(workload);
}
