/**
 * MariaDB as a StatefulSet: `--init-file` makes the tenant's database and user, and sets its
 * password again, at every start.
 */
import type { DatabaseWorkload } from '../../runtime.js';
import { DATA_VOLUME, kubeName, secretName, tenantName } from '../names.js';
import { fromSecret, probe, tenantEnv, type KubernetesEngine } from './engine.js';

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

export const mysql: KubernetesEngine = {
  name: 'mysql',
  runsAs: 'StatefulSet',
  image: 'mariadb:10.11',
  serviceName: (workload) => kubeName(workload.id),
  username: (workload) => tenantName(workload.id),
  database: (workload) => tenantName(workload.id),
  connectionString: (login, database) => `mysql://${login}/${database}`,
  secretData: (workload, password, adminPassword) => ({
    'admin-password': adminPassword,
    'init.sql': mariadbInitSql(workload, password),
  }),
  container: (workload) => ({
    args: ['--init-file=/etc/cloudplane/init.sql'],
    env: [
      fromSecret(workload, 'MARIADB_ROOT_PASSWORD', 'admin-password'),
      ...tenantEnv(workload, tenantName(workload.id)),
    ],
    readinessProbe: probe(
      'MYSQL_PWD="$TENANT_PASSWORD" mariadb -h 127.0.0.1 -u "$TENANT_USER" -e "SELECT 1" "$TENANT_DATABASE"',
    ),
    volumeMounts: [
      { name: DATA_VOLUME, mountPath: '/var/lib/mysql' },
      { name: 'init', mountPath: '/etc/cloudplane', readOnly: true },
    ],
  }),
  volumes: (workload) => [
    {
      name: 'init',
      secret: { secretName: secretName(workload.id), items: [{ key: 'init.sql', path: 'init.sql' }] },
    },
  ],
  storageGb: (workload) => workload.storageGb ?? 1,
  dumpExtension: 'sql',
  dumpCommand: ({ host, port, file }) =>
    `MYSQL_PWD="$TENANT_PASSWORD" mariadb-dump -h ${host} -P ${port} -u "$TENANT_USER" --single-transaction --routines "$TENANT_DATABASE" > "${file}"`,
  loadCommand: ({ host, port, file }) =>
    `MYSQL_PWD="$TENANT_PASSWORD" mariadb -h ${host} -P ${port} -u "$TENANT_USER" "$TENANT_DATABASE" < "${file}"`,
};
