import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { preparedQuery } from '../data-plane/prepared-query.js';
import type { DataPlaneSchema, VaultKeyringsTable } from '../data-plane/schema.js';
import { deriveKey } from '../security/key-derivation.js';
import { open, seal, SealedBoxError } from '../security/sealed-box.js';
import { Barrier } from './barrier.js';
import { combineShares, splitSecret } from './shamir.js';
import { VaultError } from './vault-error.js';

const KEY_BYTES = 32;

/** What `POST /unseal` and `POST /seal` answer, as Vault's `sys/seal-status` does. */
export interface SealStatus {
  sealed: boolean;
  /** Shares needed. */
  t: number;
  /** Shares made. */
  n: number;
  /** Shares given so far towards the next unseal. */
  progress: number;
  autoUnseal: boolean;
}

export interface KeyringOptions {
  shares: number;
  threshold: number;
  autoUnseal: boolean;
}

// Every vault request reads its cluster's keyring: compiled once rather than built per call.
const keyringOf = preparedQuery((db, clusterId: string) =>
  db.selectFrom('vault_keyrings').selectAll().where('cluster_id', '=', clusterId),
);

interface ClusterSealState {
  barrier?: Barrier;
  /** The stored value the barrier was opened from, in the shared mode: a change means resealed elsewhere. */
  openedFrom?: string;
  progress: Buffer[];
  /** An auto-unseal cluster sealed by an operator stays sealed in this process until restart. */
  sealedByOperator: boolean;
  /** The audit salt opened from its stored form: every request's audit entry needs it. */
  auditSalt?: { sealed: VaultKeyringsTable['sealed_audit_salt']; salt: Buffer };
}

/**
 * Keyrings and unseal state. The root key exists in the clear only in memory while a cluster is
 * unsealed (and during initialisation, to be split into shares).
 *
 * Unseal state is per process. With `shareUnsealState` (the default when replicas share a
 * PostgreSQL data plane) the root key of an unsealed cluster is also kept sealed under a key
 * derived from the platform key, so every replica serves it and sealing on one seals all. The
 * trade-off: while a cluster is unsealed, whoever holds both the database and the platform key
 * can read it without the unseal keys, which is what auto-unseal allows at all times; sealing
 * removes that copy. Without it (the embedded mode, a single process) a restart reseals every
 * cluster that does not auto-unseal, as Vault does.
 */
export class SealKeeper {
  private readonly states = new Map<string, ClusterSealState>();
  private readonly autoUnsealKeyrings = new Map<string, VaultKeyringsTable>();
  private readonly autoUnsealKey: Buffer;
  private readonly unsealCacheKey: Buffer;
  private readonly auditSaltKey: Buffer;

  constructor(
    platformKey: Buffer,
    private readonly shareUnsealState: boolean,
  ) {
    this.autoUnsealKey = deriveKey(platformKey, 'cloudplane vault auto-unseal');
    this.unsealCacheKey = deriveKey(platformKey, 'cloudplane vault unseal cache');
    this.auditSaltKey = deriveKey(platformKey, 'cloudplane vault audit salt');
  }

  /**
   * Writes a new keyring and answers the unseal key shares (base64), which exist nowhere else.
   * An auto-unseal cluster gets no shares: its root key is sealed under the platform key.
   */
  async createKeyring(
    db: Kysely<DataPlaneSchema>,
    clusterId: string,
    options: KeyringOptions,
    now: Date,
  ): Promise<string[]> {
    const rootKey = randomBytes(KEY_BYTES);
    const barrierKey = randomBytes(KEY_BYTES);
    const shares = options.autoUnseal ? [] : splitSecret(rootKey, options.shares, options.threshold);
    await db
      .insertInto('vault_keyrings')
      .values({
        cluster_id: clusterId,
        secret_shares: options.autoUnseal ? 0 : options.shares,
        secret_threshold: options.autoUnseal ? 0 : options.threshold,
        auto_unseal: options.autoUnseal ? 1 : 0,
        sealed_barrier_key: seal(rootKey, barrierKey, barrierAssociatedData(clusterId)),
        sealed_root_key: options.autoUnseal
          ? seal(this.autoUnsealKey, rootKey, `vault-root:${clusterId}`)
          : null,
        unsealed_root_key: null,
        sealed_audit_salt: seal(this.auditSaltKey, randomBytes(KEY_BYTES), `vault-audit:${clusterId}`),
        created_at: now.toISOString(),
      })
      .execute();
    rootKey.fill(0);
    barrierKey.fill(0);
    return shares.map((share) => share.toString('base64'));
  }

  /**
   * The cluster's keyring. An auto-unseal cluster's is kept once read: every request reads its
   * keyring, and nothing of an auto-unseal keyring changes after it is made (sealing it is this
   * process's state, `sealedByOperator`); it goes with `forget`. The others are read every time:
   * another replica may unseal or seal them.
   */
  async readKeyring(db: Kysely<DataPlaneSchema>, clusterId: string): Promise<VaultKeyringsTable | undefined> {
    const kept = this.autoUnsealKeyrings.get(clusterId);
    if (kept) return kept;
    const [keyring] = await keyringOf(db, clusterId);
    if (keyring?.auto_unseal === 1) this.autoUnsealKeyrings.set(clusterId, keyring);
    return keyring;
  }

  /** The cluster's audit HMAC key, available sealed or not: refusals are audited too. */
  auditSalt(keyring: VaultKeyringsTable): Buffer {
    const state = this.state(keyring.cluster_id);
    if (state.auditSalt?.sealed !== keyring.sealed_audit_salt) {
      const salt = open(this.auditSaltKey, keyring.sealed_audit_salt, `vault-audit:${keyring.cluster_id}`);
      state.auditSalt = { sealed: keyring.sealed_audit_salt, salt };
    }
    return state.auditSalt.salt;
  }

  /** The barrier of an unsealed cluster, or undefined while it is sealed. */
  barrier(keyring: VaultKeyringsTable): Barrier | undefined {
    const state = this.state(keyring.cluster_id);
    if (keyring.auto_unseal === 1) {
      if (state.sealedByOperator || keyring.sealed_root_key === null) return undefined;
      if (!state.barrier) {
        const rootKey = open(this.autoUnsealKey, keyring.sealed_root_key, `vault-root:${keyring.cluster_id}`);
        state.barrier = openBarrier(keyring, rootKey);
      }
      return state.barrier;
    }
    if (!this.shareUnsealState) return state.barrier;
    if (keyring.unsealed_root_key === null) {
      state.barrier = undefined;
      return undefined;
    }
    if (!state.barrier || state.openedFrom !== keyring.unsealed_root_key) {
      const rootKey = open(
        this.unsealCacheKey,
        keyring.unsealed_root_key,
        `vault-unsealed:${keyring.cluster_id}`,
      );
      state.barrier = openBarrier(keyring, rootKey);
      state.openedFrom = keyring.unsealed_root_key;
    }
    return state.barrier;
  }

  status(keyring: VaultKeyringsTable): SealStatus {
    const barrier = this.barrier(keyring);
    return {
      sealed: barrier === undefined,
      t: keyring.secret_threshold,
      n: keyring.secret_shares,
      progress: barrier ? 0 : this.state(keyring.cluster_id).progress.length,
      autoUnseal: keyring.auto_unseal === 1,
    };
  }

  /**
   * Adds one unseal key share. When the threshold is reached the shares are combined; keys that
   * do not open the barrier reset the progress and answer 400, as Vault does.
   */
  async submitShare(
    db: Kysely<DataPlaneSchema>,
    keyring: VaultKeyringsTable,
    key: string,
  ): Promise<SealStatus> {
    if (keyring.auto_unseal === 1) {
      throw new VaultError(
        'invalid',
        'this cluster unseals itself with the platform key; it has no unseal keys',
      );
    }
    if (this.barrier(keyring) !== undefined) return this.status(keyring);
    const share = decodeShare(key, keyring);
    const state = this.state(keyring.cluster_id);
    if (state.progress.some((given) => given.equals(share))) return this.status(keyring);
    if (state.progress.some((given) => given[0] === share[0])) {
      throw new VaultError('invalid', 'a different unseal key with the same share number was already given');
    }
    state.progress.push(share);
    if (state.progress.length < keyring.secret_threshold) return this.status(keyring);
    const shares = state.progress;
    state.progress = [];
    const rootKey = combineShares(shares);
    let barrier: Barrier;
    try {
      barrier = openBarrier(keyring, rootKey);
    } catch (error) {
      if (error instanceof SealedBoxError) {
        throw new VaultError('invalid', 'the unseal keys given do not reconstruct the root key; start again');
      }
      throw error;
    }
    if (this.shareUnsealState) {
      const cached = seal(this.unsealCacheKey, rootKey, `vault-unsealed:${keyring.cluster_id}`);
      await db
        .updateTable('vault_keyrings')
        .set({ unsealed_root_key: cached })
        .where('cluster_id', '=', keyring.cluster_id)
        .execute();
      state.openedFrom = cached;
    }
    rootKey.fill(0);
    state.barrier = barrier;
    return this.status({ ...keyring, unsealed_root_key: state.openedFrom ?? null });
  }

  /** Seals the cluster: drops its barrier from memory and, when shared, from the data plane. */
  async seal(db: Kysely<DataPlaneSchema>, keyring: VaultKeyringsTable): Promise<SealStatus> {
    const state = this.state(keyring.cluster_id);
    state.barrier = undefined;
    state.openedFrom = undefined;
    state.progress = [];
    if (keyring.auto_unseal === 1) state.sealedByOperator = true;
    await db
      .updateTable('vault_keyrings')
      .set({ unsealed_root_key: null })
      .where('cluster_id', '=', keyring.cluster_id)
      .execute();
    return this.status({ ...keyring, unsealed_root_key: null });
  }

  forget(clusterId: string): void {
    this.states.delete(clusterId);
    this.autoUnsealKeyrings.delete(clusterId);
  }

  private state(clusterId: string): ClusterSealState {
    let state = this.states.get(clusterId);
    if (!state) {
      state = { progress: [], sealedByOperator: false };
      this.states.set(clusterId, state);
    }
    return state;
  }
}

function barrierAssociatedData(clusterId: string): string {
  return `vault-barrier:${clusterId}`;
}

function openBarrier(keyring: VaultKeyringsTable, rootKey: Buffer): Barrier {
  const barrierKey = open(rootKey, keyring.sealed_barrier_key, barrierAssociatedData(keyring.cluster_id));
  return new Barrier(barrierKey, keyring.cluster_id);
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function decodeShare(key: string, keyring: VaultKeyringsTable): Buffer {
  const trimmed = key.trim();
  const share = BASE64.test(trimmed) && trimmed.length % 4 === 0 ? Buffer.from(trimmed, 'base64') : undefined;
  if (!share || share.length !== KEY_BYTES + 1 || share[0] === 0 || share[0]! > keyring.secret_shares) {
    throw new VaultError('invalid', 'key is not an unseal key of this cluster (expected a base64 key share)');
  }
  return share;
}
