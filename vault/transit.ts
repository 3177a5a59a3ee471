import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { preparedQuery } from '../data-plane/prepared-query.js';
import type { DataPlaneSchema } from '../data-plane/schema.js';
import { open, seal, SealedBoxError } from '../security/sealed-box.js';
import type { Barrier } from './barrier.js';
import { VaultError, WriteNeeded } from './vault-error.js';

export interface TransitKeyInfo {
  name: string;
  latest_version: number;
  min_decryption_version: number;
}

const KEY_NAME = /^[A-Za-z0-9_-]{1,128}$/;
/**
 * Padded standard base64: alphabet characters, then at most two `=`, in a length that is a whole
 * number of four-character groups. The same strings as groups of four with an optional padded
 * last group, checked in one scan without alternation: plaintexts are kilobytes long and every
 * encrypt and decrypt checks its input.
 */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const CIPHERTEXT = /^vault:v([1-9][0-9]*):(.+)$/;
/** Transit ciphertexts carry no associated data, as Vault's do without a derivation context. */
const NO_ASSOCIATED_DATA = '';

function checkKeyName(name: string): void {
  if (!KEY_NAME.test(name)) {
    throw new VaultError(
      'invalid',
      `invalid transit key name ${JSON.stringify(name)}: letters, digits, _ and -, at most 128`,
    );
  }
}

/** Decodes strict base64; 400 naming the field otherwise. */
export function decodeBase64(value: string, field: string): Buffer {
  if (value.length % 4 !== 0 || !BASE64.test(value)) {
    throw new VaultError('invalid', `${field} must be base64`);
  }
  return Buffer.from(value, 'base64');
}

// Every encrypt and decrypt reads its key: compiled once rather than built per call.
const keyVersionsOf = preparedQuery((db, clusterId: string, name: string) =>
  db
    .selectFrom('vault_transit_keys')
    .select(['latest_version', 'sealed_versions'])
    .where('cluster_id', '=', clusterId)
    .where('name', '=', name),
);

/** The key versions of one transit key as last opened, with the sealed text they were opened from. */
interface OpenedKey {
  sealed: string;
  versions: ReadonlyMap<number, Buffer>;
}

/**
 * Key versions as last opened, per barrier and key name, kept while the stored sealed text stays
 * the same: every encrypt and decrypt reads its key, and opening the sealed versions cost more than
 * the rest of the operation. Keyed by the barrier, so a cluster that seals (its barrier dropped)
 * takes them with it.
 */
const openedKeys = new WeakMap<Barrier, Map<string, OpenedKey>>();
const MAX_OPENED_KEYS = 1_000;

/**
 * Encryption as a service with named AES-256-GCM keys (Vault's transit engine). A key is made on
 * first encryption; rotation adds a version used for new ciphertexts while older versions still
 * decrypt. Key versions are stored together, sealed by the barrier.
 */
export class TransitEngine {
  constructor(
    private readonly db: Kysely<DataPlaneSchema>,
    private readonly clusterId: string,
    private readonly barrier: Barrier,
    private readonly now: () => Date,
    /** False when run read-only: making a key throws `WriteNeeded` instead. */
    private readonly writable = true,
  ) {}

  /** `plaintext` is base64; answers `vault:v<N>:<base64>`. */
  async encrypt(name: string, plaintext: string): Promise<string> {
    checkKeyName(name);
    const data = decodeBase64(plaintext, 'plaintext');
    const key = (await this.load(name)) ?? (await this.createKey(name));
    const version = key.latest;
    const sealed = seal(key.versions.get(version)!, data, NO_ASSOCIATED_DATA);
    return `vault:v${version}:${sealed.slice(sealed.indexOf(':') + 1)}`;
  }

  /** Answers the plaintext as base64; 400 for a malformed or foreign ciphertext. */
  async decrypt(name: string, ciphertext: string): Promise<string> {
    checkKeyName(name);
    const match = CIPHERTEXT.exec(ciphertext);
    if (!match) throw new VaultError('invalid', 'cipher_text must have the form vault:v<version>:<base64>');
    const version = Number(match[1]);
    decodeBase64(match[2]!, 'cipher_text');
    const key = await this.load(name);
    if (!key) throw new VaultError('not_found', `transit key ${name} not found`);
    const material = key.versions.get(version);
    if (!material) throw new VaultError('invalid', `transit key ${name} has no version ${version}`);
    try {
      return open(material, `v1:${match[2]!}`, NO_ASSOCIATED_DATA).toString('base64');
    } catch (error) {
      if (error instanceof SealedBoxError) {
        throw new VaultError('invalid', `cipher_text was not produced by transit key ${name}`);
      }
      throw error;
    }
  }

  async rotate(name: string): Promise<TransitKeyInfo> {
    checkKeyName(name);
    const key = await this.load(name);
    if (!key) throw new VaultError('not_found', `transit key ${name} not found`);
    const version = key.latest + 1;
    const versions = new Map(key.versions).set(version, randomBytes(32));
    await this.db
      .updateTable('vault_transit_keys')
      .set({
        latest_version: version,
        sealed_versions: this.sealVersions(name, versions),
        rotated_at: this.now().toISOString(),
      })
      .where('cluster_id', '=', this.clusterId)
      .where('name', '=', name)
      .where('latest_version', '=', key.latest)
      .execute();
    return { name, latest_version: version, min_decryption_version: 1 };
  }

  /** Creates the key unless it exists (encrypting creates one too); answers it either way. */
  async create(name: string): Promise<TransitKeyInfo> {
    checkKeyName(name);
    const key = (await this.load(name)) ?? (await this.createKey(name));
    return { name, latest_version: key.latest, min_decryption_version: 1 };
  }

  async read(name: string): Promise<TransitKeyInfo> {
    checkKeyName(name);
    const key = await this.load(name);
    if (!key) throw new VaultError('not_found', `transit key ${name} not found`);
    return { name, latest_version: key.latest, min_decryption_version: 1 };
  }

  private async createKey(name: string): Promise<{ latest: number; versions: ReadonlyMap<number, Buffer> }> {
    if (!this.writable) throw new WriteNeeded(`transit key ${name} must be created`);
    const versions = new Map([[1, randomBytes(32)]]);
    const now = this.now().toISOString();
    await this.db
      .insertInto('vault_transit_keys')
      .values({
        cluster_id: this.clusterId,
        name,
        latest_version: 1,
        sealed_versions: this.sealVersions(name, versions),
        created_at: now,
        rotated_at: now,
      })
      .execute();
    return { latest: 1, versions };
  }

  private async load(
    name: string,
  ): Promise<{ latest: number; versions: ReadonlyMap<number, Buffer> } | undefined> {
    const [row] = await keyVersionsOf(this.db, this.clusterId, name);
    if (!row) return undefined;
    return { latest: row.latest_version, versions: this.opened(name, row.sealed_versions) };
  }

  private opened(name: string, sealed: string): ReadonlyMap<number, Buffer> {
    let keys = openedKeys.get(this.barrier);
    if (!keys) {
      keys = new Map();
      openedKeys.set(this.barrier, keys);
    }
    const kept = keys.get(name);
    if (kept?.sealed === sealed) return kept.versions;
    const stored = this.barrier.decryptJson<Record<string, string>>(`transit:${name}`, sealed);
    const versions = new Map(
      Object.entries(stored).map(([version, key]) => [Number(version), Buffer.from(key, 'base64')]),
    );
    if (keys.size >= MAX_OPENED_KEYS) keys.clear();
    keys.set(name, { sealed, versions });
    return versions;
  }

  private sealVersions(name: string, versions: ReadonlyMap<number, Buffer>): string {
    const plain = Object.fromEntries(
      [...versions].map(([version, key]) => [String(version), key.toString('base64')]),
    );
    return this.barrier.encryptJson(`transit:${name}`, plain);
  }
}
