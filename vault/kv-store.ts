import { sql, type Kysely } from 'kysely';
import { preparedQuery } from '../data-plane/prepared-query.js';
import { isUniqueViolation } from '../data-plane/unique-violation.js';
import type { DataPlaneSchema, VaultSecretVersionsTable } from '../data-plane/schema.js';
import type { Barrier } from './barrier.js';
import { VaultError } from './vault-error.js';

/** KV v2 version metadata, as Vault answers it on write and beside data on read. */
export interface SecretVersionMetadata {
  created_time: string;
  custom_metadata: Record<string, string> | null;
  /** Empty while the version is not deleted. */
  deletion_time: string;
  destroyed: boolean;
  version: number;
}

export interface SecretRead {
  data: Record<string, unknown>;
  metadata: SecretVersionMetadata;
}

/** KV v2 metadata of a path, as Vault answers `GET secret/metadata/<path>`. */
export interface SecretMetadata {
  current_version: number;
  oldest_version: number;
  created_time: string;
  updated_time: string;
  custom_metadata: Record<string, string> | null;
  versions: Record<string, { created_time: string; deletion_time: string; destroyed: boolean }>;
}

export interface WriteOptions {
  /** Check-and-set: the write succeeds only when the current version is this; 0 means create only. */
  cas?: number;
}

const SEGMENT = /^[A-Za-z0-9_.@=+-]+$/;
export const MAX_PATH_LENGTH = 512;

/** Refuses a secret path Vault would not store: empty segments, `.` or `..`, odd characters. */
export function checkSecretPath(path: string): void {
  const segments = path.split('/');
  const valid =
    path.length > 0 &&
    path.length <= MAX_PATH_LENGTH &&
    segments.every((segment) => SEGMENT.test(segment) && segment !== '.' && segment !== '..');
  if (!valid) {
    throw new VaultError(
      'invalid',
      `invalid secret path ${JSON.stringify(path)}: use segments of letters, digits and _ . @ = + - separated by "/", at most ${MAX_PATH_LENGTH} characters`,
    );
  }
}

/** A list prefix: a valid path with an optional trailing "/", or empty for the root. */
function checkPrefix(prefix: string): void {
  const trimmed = prefix.replace(/\/$/, '');
  if (trimmed !== '') checkSecretPath(trimmed);
}

/** Escapes LIKE wildcards so a prefix matches literally. */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

function metadataOf(
  row: Pick<VaultSecretVersionsTable, 'created_at' | 'deletion_time' | 'destroyed' | 'version'>,
  customMetadata: Record<string, string> | null,
): SecretVersionMetadata {
  return {
    created_time: row.created_at,
    custom_metadata: customMetadata,
    deletion_time: row.deletion_time ?? '',
    destroyed: row.destroyed === 1,
    version: row.version,
  };
}

// Every secret read runs these two: compiled once rather than built per call.
const metadataRowOf = preparedQuery((db, clusterId: string, path: string) =>
  db
    .selectFrom('vault_secret_metadata')
    .selectAll()
    .where('cluster_id', '=', clusterId)
    .where('path', '=', path),
);
const versionOf = preparedQuery((db, clusterId: string, path: string, version: number) =>
  db
    .selectFrom('vault_secret_versions')
    .selectAll()
    .where('cluster_id', '=', clusterId)
    .where('path', '=', path)
    .where('version', '=', version),
);

/** Every path's metadata beside its current version's row. */
function withCurrentVersion(db: Kysely<DataPlaneSchema>) {
  return db
    .selectFrom('vault_secret_metadata as m')
    .innerJoin('vault_secret_versions as v', (join) =>
      join
        .onRef('v.cluster_id', '=', 'm.cluster_id')
        .onRef('v.path', '=', 'm.path')
        .onRef('v.version', '=', 'm.current_version'),
    );
}

// A read of the latest version, the most frequent request: its row and its path's metadata in one.
const currentVersionOf = preparedQuery((db, clusterId: string, path: string) =>
  withCurrentVersion(db)
    .select([
      'v.version',
      'v.sealed_data',
      'v.created_at',
      'v.deletion_time',
      'v.destroyed',
      'm.sealed_custom_metadata',
    ])
    .where('m.cluster_id', '=', clusterId)
    .where('m.path', '=', path),
);

/** Versioned secrets with Vault's KV v2 semantics, every value sealed by the barrier. */
export class KvStore {
  constructor(
    private readonly db: Kysely<DataPlaneSchema>,
    private readonly clusterId: string,
    private readonly barrier: Barrier,
    private readonly now: () => Date,
  ) {}

  /** Whether a secret path has ever been written and not removed. */
  async exists(path: string): Promise<boolean> {
    checkSecretPath(path);
    return (await this.metadataRow(path)) !== undefined;
  }

  async write(
    path: string,
    data: Record<string, unknown>,
    options: WriteOptions = {},
  ): Promise<SecretVersionMetadata> {
    checkSecretPath(path);
    const existing = await this.metadataRow(path);
    const current = existing?.current_version ?? 0;
    if (options.cas !== undefined && options.cas !== current) {
      throw new VaultError(
        'conflict',
        options.cas === 0
          ? `check-and-set failed: secret ${path} already exists (version ${current})`
          : `check-and-set failed: secret ${path} is at version ${current}, not ${options.cas}`,
      );
    }
    const version = current + 1;
    const now = this.now().toISOString();
    const sealed = this.barrier.encryptJson(versionLocation(path, version), data);
    try {
      await this.db
        .insertInto('vault_secret_versions')
        .values({
          cluster_id: this.clusterId,
          path,
          version,
          sealed_data: sealed,
          size_bytes: Buffer.byteLength(sealed),
          created_at: now,
          deletion_time: null,
          destroyed: 0,
        })
        .execute();
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new VaultError(
          'conflict',
          `secret ${path} was written by another request; read it again and retry`,
        );
      }
      throw error;
    }
    if (existing) {
      await this.db
        .updateTable('vault_secret_metadata')
        .set({ current_version: version, updated_at: now })
        .where('cluster_id', '=', this.clusterId)
        .where('path', '=', path)
        .execute();
    } else {
      await this.db
        .insertInto('vault_secret_metadata')
        .values({
          cluster_id: this.clusterId,
          path,
          current_version: version,
          sealed_custom_metadata: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
    return {
      created_time: now,
      custom_metadata: this.customMetadata(path, existing?.sealed_custom_metadata ?? null),
      deletion_time: '',
      destroyed: false,
      version,
    };
  }

  /** The latest version, or `version`; 404 when absent, deleted or destroyed. */
  async read(path: string, version?: number): Promise<SecretRead> {
    checkSecretPath(path);
    const [row] =
      version === undefined
        ? await currentVersionOf(this.db, this.clusterId, path)
        : await this.versionWithMetadata(path, version);
    if (!row) {
      throw new VaultError(
        'not_found',
        version === undefined ? `secret ${path} not found` : `secret ${path} has no version ${version}`,
      );
    }
    if (row.deletion_time !== null || row.destroyed === 1 || row.sealed_data === null) {
      throw new VaultError(
        'not_found',
        `secret ${path} version ${row.version} is ${row.destroyed ? 'destroyed' : 'deleted'}`,
      );
    }
    return {
      data: this.barrier.decryptJson<Record<string, unknown>>(
        versionLocation(path, row.version),
        row.sealed_data,
      ),
      metadata: metadataOf(row, this.customMetadata(path, row.sealed_custom_metadata)),
    };
  }

  /** Version `version` of the path with its metadata's custom metadata; none when either is missing. */
  private async versionWithMetadata(path: string, version: number) {
    const metadata = await this.metadataRow(path);
    if (!metadata) return [];
    const rows = await versionOf(this.db, this.clusterId, path, version);
    return rows.map((row) => ({ ...row, sealed_custom_metadata: metadata.sealed_custom_metadata }));
  }

  /** Soft-deletes the latest version (a later read answers 404); 404 when the path was never written. */
  async delete(path: string): Promise<void> {
    checkSecretPath(path);
    const metadata = await this.metadataRow(path);
    if (!metadata) throw new VaultError('not_found', `secret ${path} not found`);
    await this.db
      .updateTable('vault_secret_versions')
      .set({ deletion_time: this.now().toISOString() })
      .where('cluster_id', '=', this.clusterId)
      .where('path', '=', path)
      .where('version', '=', metadata.current_version)
      .where('deletion_time', 'is', null)
      .execute();
  }

  /** Replaces the custom metadata of a path (string values, as Vault allows). */
  async setCustomMetadata(path: string, customMetadata: Record<string, string>): Promise<void> {
    checkSecretPath(path);
    if (!(await this.metadataRow(path))) throw new VaultError('not_found', `secret ${path} not found`);
    await this.db
      .updateTable('vault_secret_metadata')
      .set({ sealed_custom_metadata: this.barrier.encryptJson(`kv-metadata:${path}`, customMetadata) })
      .where('cluster_id', '=', this.clusterId)
      .where('path', '=', path)
      .execute();
  }

  /**
   * Keys under `prefix`. Like Vault's LIST: the immediate children, folders ending in "/".
   * `recursive`: every secret path under the prefix, relative to it.
   */
  async list(prefix: string, recursive = false): Promise<string[]> {
    checkPrefix(prefix);
    const base = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
    const rows = await this.db
      .selectFrom('vault_secret_metadata')
      .select('path')
      .where('cluster_id', '=', this.clusterId)
      .where(sql<boolean>`path like ${likePrefix(base)} escape '\\'`)
      .orderBy('path')
      .execute();
    const keys = new Set<string>();
    for (const { path } of rows) {
      if (!path.startsWith(base)) continue;
      const rest = path.slice(base.length);
      if (recursive) {
        keys.add(rest);
      } else {
        const slash = rest.indexOf('/');
        keys.add(slash < 0 ? rest : rest.slice(0, slash + 1));
      }
    }
    return [...keys].sort();
  }

  /** Vault's KV v2 metadata of a path: every version's state; 404 when the path was never written. */
  async metadata(path: string): Promise<SecretMetadata> {
    checkSecretPath(path);
    const metadata = await this.metadataRow(path);
    if (!metadata) throw new VaultError('not_found', `secret ${path} not found`);
    const rows = await this.db
      .selectFrom('vault_secret_versions')
      .select(['version', 'created_at', 'deletion_time', 'destroyed'])
      .where('cluster_id', '=', this.clusterId)
      .where('path', '=', path)
      .orderBy('version')
      .execute();
    return {
      current_version: metadata.current_version,
      oldest_version: rows[0]?.version ?? 0,
      created_time: metadata.created_at,
      updated_time: metadata.updated_at,
      custom_metadata: this.customMetadata(path, metadata.sealed_custom_metadata),
      versions: Object.fromEntries(
        rows.map((row) => [
          String(row.version),
          {
            created_time: row.created_at,
            deletion_time: row.deletion_time ?? '',
            destroyed: row.destroyed === 1,
          },
        ]),
      ),
    };
  }

  /** Removes a path with every version and its metadata; 404 when the path was never written. */
  async destroy(path: string): Promise<void> {
    checkSecretPath(path);
    if (!(await this.metadataRow(path))) throw new VaultError('not_found', `secret ${path} not found`);
    await this.db
      .deleteFrom('vault_secret_versions')
      .where('cluster_id', '=', this.clusterId)
      .where('path', '=', path)
      .execute();
    await this.db
      .deleteFrom('vault_secret_metadata')
      .where('cluster_id', '=', this.clusterId)
      .where('path', '=', path)
      .execute();
  }

  private async metadataRow(path: string) {
    const [row] = await metadataRowOf(this.db, this.clusterId, path);
    return row;
  }

  private customMetadata(path: string, sealed: string | null): Record<string, string> | null {
    return sealed === null
      ? null
      : this.barrier.decryptJson<Record<string, string>>(`kv-metadata:${path}`, sealed);
  }
}

function versionLocation(path: string, version: number): string {
  return `kv:${path}:${version}`;
}

/** Secret counts and stored bytes, readable while sealed: they come from metadata, not values. */
export async function secretUsage(
  db: Kysely<DataPlaneSchema>,
  clusterId: string,
): Promise<{ totalSecrets: number; storageBytes: number }> {
  const live = await withCurrentVersion(db)
    .select((eb) => eb.fn.countAll().as('count'))
    .where('m.cluster_id', '=', clusterId)
    .where('v.deletion_time', 'is', null)
    .where('v.destroyed', '=', 0)
    .executeTakeFirst();
  const stored = await db
    .selectFrom('vault_secret_versions')
    .select((eb) => eb.fn.sum<string | number | null>('size_bytes').as('bytes'))
    .where('cluster_id', '=', clusterId)
    .where('destroyed', '=', 0)
    .executeTakeFirst();
  return { totalSecrets: Number(live?.count ?? 0), storageBytes: Number(stored?.bytes ?? 0) };
}
