/**
 * The database engines the platform offers and the major versions of each: the one list that the
 * REST API, stack templates, the Database CRD, the controllers and both workload runtimes read
 * (`GET /v1/databases/versions` serves it to clients).
 */

export interface DatabaseEngineOffer {
  /** What actually runs: the `mysql` engine is MariaDB. */
  product: string;
  /** Other names a request may give the engine; the database is kept under the engine's own name. */
  aliases: readonly string[];
  /** The major versions offered, oldest first. */
  versions: readonly string[];
  /** What a database asked without a version runs on the local runtime. */
  defaultVersion: string;
  /** The size a database of the engine takes: storage in GB, or memory in MiB. */
  sizedBy: 'storage' | 'memory';
}

const ENGINE_NAMES = ['postgresql', 'mysql', 'redis', 'mongodb'] as const;
const POSTGRESQL_VERSIONS = ['14', '15', '16', '17'] as const;
const MARIADB_VERSIONS = ['10.11'] as const;
const REDIS_VERSIONS = ['7'] as const;
const MONGODB_VERSIONS = ['7.0'] as const;

export type DatabaseEngineName = (typeof ENGINE_NAMES)[number];

export const DATABASE_ENGINES: Record<DatabaseEngineName, DatabaseEngineOffer> = {
  postgresql: {
    product: 'PostgreSQL',
    aliases: [],
    versions: POSTGRESQL_VERSIONS,
    defaultVersion: '15',
    sizedBy: 'storage',
  },
  mysql: {
    product: 'MariaDB',
    aliases: ['mariadb'],
    versions: MARIADB_VERSIONS,
    defaultVersion: '10.11',
    sizedBy: 'storage',
  },
  redis: { product: 'Redis', aliases: [], versions: REDIS_VERSIONS, defaultVersion: '7', sizedBy: 'memory' },
  mongodb: {
    product: 'MongoDB',
    aliases: [],
    versions: MONGODB_VERSIONS,
    defaultVersion: '7.0',
    sizedBy: 'storage',
  },
};

/** Every version of every engine: what the CRD lets `spec.version` be; the engine narrows it. */
export type DatabaseVersion =
  | (typeof POSTGRESQL_VERSIONS)[number]
  | (typeof MARIADB_VERSIONS)[number]
  | (typeof REDIS_VERSIONS)[number]
  | (typeof MONGODB_VERSIONS)[number];

export const DATABASE_ENGINE_NAMES: readonly DatabaseEngineName[] = ENGINE_NAMES;

/** The names a request may give: each engine's own, then the aliases. */
export const ACCEPTED_ENGINE_NAMES: readonly string[] = [
  ...DATABASE_ENGINE_NAMES,
  ...DATABASE_ENGINE_NAMES.flatMap((engine) => DATABASE_ENGINES[engine].aliases),
];

/** The engine a name stands for (`mariadb` is `mysql`), or undefined when none does. */
export function engineNamed(name: string): DatabaseEngineName | undefined {
  return DATABASE_ENGINE_NAMES.find(
    (engine) => engine === name || DATABASE_ENGINES[engine].aliases.includes(name),
  );
}

export function offeredVersions(engine: DatabaseEngineName): readonly string[] {
  return DATABASE_ENGINES[engine].versions;
}
