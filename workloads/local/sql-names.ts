/**
 * How the SQL engines name what they create for a workload, read the versions their servers
 * report, and find the client programs the machine has installed.
 */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { WorkloadError, type DatabaseAccess } from '../runtime.js';

/**
 * The role (user) and database name of a workload: its id as is. Ids are `db_` and hex, so this
 * only refuses what could not have come from the platform; the limit is MySQL's user name length.
 */
export function tenantName(id: string): string {
  if (!/^[a-z][a-z0-9_]{0,31}$/.test(id)) {
    throw new WorkloadError('InvalidName', `${JSON.stringify(id)} cannot name a database or a role`);
  }
  return id;
}

/** `15.18 (Debian 15.18-1)` or `10.11.19-MariaDB-0+deb12u1` → `15.18`, `10.11.19`. */
export function numericVersion(reported: string): string {
  return /^\d+(\.\d+)*/.exec(reported.trim())?.[0] ?? reported.trim();
}

/** Whether `asked` names `running` or a release line it belongs to: `10.11` runs as `10.11.19`, `10.1` does not. */
export function versionCovers(asked: string, running: string): boolean {
  const wanted = asked.split('.');
  const actual = running.split('.');
  return wanted.length <= actual.length && wanted.every((part, index) => part === actual[index]);
}

/** Where programs are looked for after `preferredDirs`: the PATH, then the sbin directories it often lacks. */
function searchDirs(preferredDirs: readonly string[]): string[] {
  const onPath = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== '');
  return [...preferredDirs, ...onPath, '/usr/local/sbin', '/usr/sbin', '/sbin'];
}

/** The first of a tool's names (`mariadb-dump`, `mysqldump`) installed here, as a path. */
export function installedProgram(
  names: readonly string[],
  preferredDirs: readonly string[] = [],
): string | undefined {
  for (const dir of searchDirs(preferredDirs)) {
    for (const name of names) {
      const candidate = path.join(dir, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not in this directory
      }
    }
  }
  return undefined;
}

/** A server on this machine is advertised by the machine's name; another keeps its own. */
export function advertisedHostOf(machineName: string, serverHost: string): string {
  const loopback = serverHost === 'localhost' || serverHost === '::1' || /^127\./.test(serverHost);
  return loopback ? machineName : serverHost;
}

/** How a tenant reaches its database: the role and database are both named after the workload. */
export function tenantAccess(
  scheme: 'postgresql' | 'mysql',
  server: { advertisedHost: string; port: number },
  name: string,
  password: string,
): DatabaseAccess {
  const host = server.advertisedHost.includes(':') ? `[${server.advertisedHost}]` : server.advertisedHost;
  const user = encodeURIComponent(name);
  return {
    host: server.advertisedHost,
    port: server.port,
    username: name,
    database: name,
    connectionString: `${scheme}://${user}:${encodeURIComponent(password)}@${host}:${server.port}/${user}`,
  };
}
