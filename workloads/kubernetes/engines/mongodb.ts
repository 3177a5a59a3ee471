/**
 * MongoDB as a StatefulSet: the image makes the platform's admin account, and a postStart hook
 * makes the tenant's user (or sets its password again) once the server takes that login.
 */
import { DATA_VOLUME, kubeName, tenantName } from '../names.js';
import { ADMIN_USER, exec, fromSecret, probe, tenantEnv, type KubernetesEngine } from './engine.js';

/** Creates the tenant's user, or sets its password, once the server takes the admin's login. */
const TENANT_SCRIPT = [
  'const d = db.getSiblingDB(process.env.TENANT_DATABASE);',
  'const u = process.env.TENANT_USER; const p = process.env.TENANT_PASSWORD;',
  "if (d.getUser(u)) d.updateUser(u, { pwd: p }); else d.createUser({ user: u, pwd: p, roles: [{ role: 'dbOwner', db: d.getName() }] });",
].join(' ');

export const mongodb: KubernetesEngine = {
  name: 'mongodb',
  runsAs: 'StatefulSet',
  image: 'mongo:7',
  serviceName: (workload) => kubeName(workload.id),
  username: (workload) => tenantName(workload.id),
  database: (workload) => tenantName(workload.id),
  connectionString: (login, database) => `mongodb://${login}/${database}?authSource=${database}`,
  secretData: (_workload, _password, adminPassword) => ({ 'admin-password': adminPassword }),
  container: (workload) => ({
    env: [
      { name: 'MONGO_INITDB_ROOT_USERNAME', value: ADMIN_USER },
      fromSecret(workload, 'MONGO_INITDB_ROOT_PASSWORD', 'admin-password'),
      ...tenantEnv(workload, tenantName(workload.id)),
    ],
    lifecycle: {
      postStart: exec(
        `until mongosh --quiet -u "$MONGO_INITDB_ROOT_USERNAME" -p "$MONGO_INITDB_ROOT_PASSWORD" --authenticationDatabase admin --eval "${TENANT_SCRIPT}"; do sleep 2; done`,
      ),
    },
    readinessProbe: probe(
      'mongosh --quiet "mongodb://127.0.0.1:27017/$TENANT_DATABASE" -u "$TENANT_USER" -p "$TENANT_PASSWORD" --eval "db.runCommand({ ping: 1 }).ok"',
    ),
    volumeMounts: [{ name: DATA_VOLUME, mountPath: '/data/db' }],
  }),
  storageGb: (workload) => workload.storageGb ?? 1,
  dumpExtension: 'archive.gz',
  dumpCommand: ({ host, port, file }) =>
    `mongodump --quiet --host ${host} --port ${port} -u "$TENANT_USER" -p "$TENANT_PASSWORD" --authenticationDatabase "$TENANT_DATABASE" --db "$TENANT_DATABASE" --archive="${file}" --gzip`,
  loadCommand: ({ host, port, file, sourceId }) =>
    `mongorestore --quiet --host ${host} --port ${port} -u "$TENANT_USER" -p "$TENANT_PASSWORD" --authenticationDatabase "$TENANT_DATABASE" --drop --archive="${file}" --gzip --nsFrom "${tenantName(sourceId)}.*" --nsTo "$TENANT_DATABASE.*"`,
};
