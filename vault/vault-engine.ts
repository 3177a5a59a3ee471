import type { Kysely } from 'kysely';
import type { DataPlane } from '../data-plane/data-plane.js';
import type { DataPlaneSchema, VaultKeyringsTable } from '../data-plane/schema.js';
import { AuditLog, AuditWriter, type AuditEntry } from './audit-log.js';
import { AuthMethodStore, DEFAULT_TOKEN_CONFIG } from './auth-methods.js';
import type { Barrier } from './barrier.js';
import { KvStore, secretUsage } from './kv-store.js';
import { isAllowed } from './policy-evaluator.js';
import type { Capability } from './policy-parser.js';
import { PolicyStore } from './policy-store.js';
import { SealKeeper, type SealStatus } from './seal.js';
import { TokenStore, type TokenInfo } from './tokens.js';
import { TransitEngine } from './transit.js';
import { sealedError, VaultError, WriteNeeded } from './vault-error.js';

/** The software version clusters report. */
export const VAULT_ENGINE_VERSION = '1.0.0';

/** The data-plane id of the cluster a VaultCluster object describes. */
export function vaultClusterId(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

const VAULT_TABLES = [
  'vault_secret_versions',
  'vault_secret_metadata',
  'vault_policies',
  'vault_tokens',
  'vault_auth_methods',
  'vault_transit_keys',
  'vault_audit_entries',
  'vault_auth_roles',
  'vault_approle_secret_ids',
  'vault_keyrings',
] as const;

export interface VaultEngineOptions {
  database: DataPlane;
  /** The platform key (security/platform-key.ts); purpose keys are derived from it. */
  platformKey: Buffer;
  now?: () => Date;
  /**
   * Keep the root key of an unsealed cluster in the data plane, sealed under the platform key,
   * so every replica serves it. Turn on when several processes share one PostgreSQL data plane.
   */
  shareUnsealState?: boolean;
}

export interface InitializeOptions {
  shares: number;
  threshold: number;
  autoUnseal: boolean;
  defaultLeaseTtlSeconds?: number;
  maxLeaseTtlSeconds?: number;
}

/** Who is asking, for authorization and the audit log. */
export interface VaultCaller {
  /** A vault token, checked against its policies. Absent: the platform itself, with `root`. */
  token?: string;
  /** The platform credential the request carried, recorded (HMAC'd) when there is no vault token. */
  credential?: string;
  /**
   * No credential at all (unseal, logins): audited with no policies, and refused anything that
   * needs a capability, rather than taken for the platform.
   */
  anonymous?: boolean;
  clientAddress: string;
  userAgent: string;
}

export type VaultOperation = 'CREATE' | 'READ' | 'UPDATE' | 'DELETE' | 'LIST';

export interface VaultRequest {
  operation: VaultOperation;
  /** The Vault API path, such as `secret/data/app/db` or `transit/encrypt/orders`. */
  path: string;
  /** What a vault token needs on `path`; computed from the data when it depends on it (create or update). */
  capability?: Capability | ((operations: ClusterOperations) => Promise<Capability>);
  /** The HTTP status the success answers with, for the audit entry. */
  successStatus: number;
  /** False for the operations a sealed cluster still answers (seal status, unseal, seal). */
  requiresUnseal?: boolean;
  /**
   * The action changes nothing (a read, an encryption under an existing key): it runs outside a
   * transaction and its audit entry is group-committed with other requests' (`AuditWriter`),
   * still durable before the answer. An action that finds it must write after all (a transit key
   * made on first use) throws `WriteNeeded` and runs again in a transaction with its entry.
   */
  readOnly?: boolean;
}

/** Raised inside the transaction so the change rolls back when its audit entry cannot be written. */
class AuditWriteFailure extends Error {}

/** The result of an action run read-only, or undefined when it had to write after all. */
async function readOnlyAttempt<T>(action: () => Promise<T>): Promise<{ result: T } | undefined> {
  try {
    return { result: await action() };
  } catch (error) {
    if (error instanceof WriteNeeded) return undefined;
    throw error;
  }
}

function auditUnavailable(): VaultError {
  return new VaultError(
    'audit_unavailable',
    'the audit log cannot be written; the request was not carried out',
  );
}

/** The parts of one cluster, bound to one transaction. Data parts need the cluster unsealed. */
export class ClusterOperations {
  readonly policies: PolicyStore;
  readonly tokens: TokenStore;
  readonly authMethods: AuthMethodStore;
  readonly audit: AuditLog;

  constructor(
    readonly db: Kysely<DataPlaneSchema>,
    readonly clusterId: string,
    private readonly barrier: Barrier | undefined,
    private readonly now: () => Date,
    auditSalt: Buffer,
    /** False while the request runs read-only: an action that must write throws `WriteNeeded`. */
    private readonly writable = true,
  ) {
    this.audit = new AuditLog(db, clusterId, auditSalt);
    this.policies = new PolicyStore(db, clusterId, now);
    this.tokens = new TokenStore(db, clusterId, now);
    this.authMethods = new AuthMethodStore(db, clusterId, now);
  }

  get kv(): KvStore {
    return new KvStore(this.db, this.clusterId, this.unsealedBarrier(), this.now);
  }

  get transit(): TransitEngine {
    return new TransitEngine(this.db, this.clusterId, this.unsealedBarrier(), this.now, this.writable);
  }

  /** Creates a token with the token method's TTL settings applied. */
  async createToken(request: Parameters<TokenStore['create']>[0]) {
    return this.tokens.create(request, await this.authMethods.tokenConfig());
  }

  /** Refuses (403) `token` the use of `capability` on `path` unless one of its policies grants it. */
  async authorize(token: TokenInfo, path: string, capability: Capability): Promise<void> {
    if (token.policies.includes('root')) return;
    const rules = await this.policies.rulesOf(token.policies);
    if (!isAllowed(rules, path, capability)) {
      throw new VaultError('permission_denied', `permission denied: ${capability} on ${path}`);
    }
  }

  private unsealedBarrier(): Barrier {
    if (!this.barrier) throw sealedError();
    return this.barrier;
  }
}

/** One vault cluster: seal state, audited operations, usage. */
export class VaultClusterEngine {
  /** The keyring `initialized()` read, used by the first operation instead of reading it again. */
  private prefetched: VaultKeyringsTable | undefined;

  constructor(
    private readonly engine: VaultEngine,
    readonly clusterId: string,
  ) {}

  /**
   * Whether the cluster has its keyring. A request asks this before its operation; the keyring read
   * here serves that operation too, rather than a second read of the same row a moment later.
   */
  async initialized(): Promise<boolean> {
    this.prefetched = await this.engine.seals.readKeyring(this.engine.db, this.clusterId);
    return this.prefetched !== undefined;
  }

  async status(): Promise<SealStatus> {
    return this.engine.seals.status(await this.keyring());
  }

  /** Unseals an auto-unseal cluster with the platform key (lazily, as on start-up). True when unsealed. */
  async autoUnseal(): Promise<boolean> {
    return !this.engine.seals.status(await this.keyring()).sealed;
  }

  async unseal(caller: VaultCaller, key: string): Promise<SealStatus> {
    return this.perform(
      caller,
      { operation: 'UPDATE', path: 'sys/unseal', successStatus: 200, requiresUnseal: false },
      async (operations) =>
        this.engine.seals.submitShare(operations.db, await this.keyring(operations.db), key),
    );
  }

  async seal(caller: VaultCaller): Promise<SealStatus> {
    return this.perform(
      caller,
      {
        operation: 'UPDATE',
        path: 'sys/seal',
        capability: 'sudo',
        successStatus: 200,
        requiresUnseal: false,
      },
      async (operations) => this.engine.seals.seal(operations.db, await this.keyring(operations.db)),
    );
  }

  /** Counts from metadata, readable sealed or not. */
  async usage(): Promise<{ totalSecrets: number; storageBytes: number }> {
    await this.keyring();
    return secretUsage(this.engine.db, this.clusterId);
  }

  /** Enabled auth method types and policy names, for the cluster's description. */
  async summary(): Promise<{ authMethods: string[]; policies: string[] }> {
    const keyring = await this.keyring();
    const { db, now, seals } = this.engine;
    const operations = new ClusterOperations(db, this.clusterId, undefined, now, seals.auditSalt(keyring));
    const methods = await operations.authMethods.list();
    const policies = await operations.policies.list();
    return {
      authMethods: [...new Set(methods.map((method) => method.type))],
      policies: policies.map((policy) => policy.name),
    };
  }

  /**
   * Runs one request: 503 when sealed, token authorization when the caller has a vault token,
   * then `action` and its audit entry in one transaction, so a change whose entry cannot be
   * written is rolled back and the request fails; a read-only request's entry is group-committed
   * instead (see `VaultRequest.readOnly`). Refusals are audited too.
   */
  async perform<T>(
    caller: VaultCaller,
    request: VaultRequest,
    action: (operations: ClusterOperations) => Promise<T>,
  ): Promise<T> {
    const { db, now, seals, auditWriter } = this.engine;
    const started = now();
    const keyring = await this.keyring();
    const auditSalt = seals.auditSalt(keyring);
    const auditLog = new AuditLog(db, this.clusterId, auditSalt);
    const auth: AuditEntry['auth'] = {
      client_token: caller.token ?? caller.credential ?? '',
      accessor: '',
      policies: caller.token === undefined && !caller.anonymous ? ['root'] : [],
    };
    const entry = (status: number, error: string | null): AuditEntry => {
      const finished = now();
      return {
        timestamp: finished.toISOString(),
        request: {
          operation: request.operation,
          path: request.path,
          client_token: auth.client_token,
          client_address: caller.clientAddress,
          user_agent: caller.userAgent,
        },
        response: { status, duration_ms: Math.max(0, finished.getTime() - started.getTime()) },
        auth,
        error,
      };
    };
    const authorizedAction = async (executor: Kysely<DataPlaneSchema>, writable: boolean): Promise<T> => {
      const barrier = seals.barrier(keyring);
      if (request.requiresUnseal !== false && !barrier) throw sealedError();
      const operations = new ClusterOperations(executor, this.clusterId, barrier, now, auditSalt, writable);
      if (caller.anonymous && request.capability !== undefined) {
        throw new VaultError('permission_denied', `permission denied: ${request.path} needs a token`);
      }
      if (caller.token !== undefined) {
        const token = await operations.tokens.lookup(caller.token);
        auth.accessor = token.accessor;
        auth.policies = token.policies;
        if (request.capability !== undefined) {
          const capability =
            typeof request.capability === 'function'
              ? await request.capability(operations)
              : request.capability;
          await operations.authorize(token, request.path, capability);
        }
      }
      return action(operations);
    };
    try {
      const read = request.readOnly ? await readOnlyAttempt(() => authorizedAction(db, false)) : undefined;
      if (read) {
        try {
          await auditWriter.write(auditLog.row(entry(request.successStatus, null)));
        } catch (error) {
          throw new AuditWriteFailure('audit write failed', { cause: error });
        }
        return read.result;
      }
      return await db.transaction().execute(async (trx) => {
        const result = await authorizedAction(trx, true);
        try {
          await new AuditLog(trx, this.clusterId, auditSalt).record(entry(request.successStatus, null));
        } catch (error) {
          throw new AuditWriteFailure('audit write failed', { cause: error });
        }
        return result;
      });
    } catch (error) {
      if (error instanceof AuditWriteFailure) throw auditUnavailable();
      const refusal = error instanceof VaultError ? error : undefined;
      try {
        await auditWriter.write(
          auditLog.row(entry(refusal?.status ?? 500, refusal?.message ?? 'internal error')),
        );
      } catch {
        throw auditUnavailable();
      }
      throw error;
    }
  }

  private async keyring(executor: Kysely<DataPlaneSchema> = this.engine.db): Promise<VaultKeyringsTable> {
    const prefetched = executor === this.engine.db ? this.prefetched : undefined;
    this.prefetched = undefined;
    const keyring = prefetched ?? (await this.engine.seals.readKeyring(executor, this.clusterId));
    if (!keyring) throw new VaultError('not_found', `vault cluster ${this.clusterId} is not initialised`);
    return keyring;
  }
}

/**
 * The secrets engine behind the REST routes, the VaultCluster controller and the Vault-compatible
 * API. It knows nothing of HTTP: callers map `VaultError.status` to their answers.
 */
export class VaultEngine {
  readonly seals: SealKeeper;
  readonly db: Kysely<DataPlaneSchema>;
  readonly now: () => Date;
  /** Group-commits the audit entries of read-only requests and of refusals. */
  readonly auditWriter: AuditWriter;

  constructor(options: VaultEngineOptions) {
    this.db = options.database.kysely;
    this.auditWriter = new AuditWriter(this.db);
    this.now = options.now ?? (() => new Date());
    this.seals = new SealKeeper(options.platformKey, options.shareUnsealState ?? false);
  }

  forCluster(clusterId: string): VaultClusterEngine {
    return new VaultClusterEngine(this, clusterId);
  }

  /**
   * Creates the cluster's keyring and token method settings in one transaction and answers the
   * unseal keys (none with auto-unseal). 409 when the cluster is already initialised.
   */
  async initialize(clusterId: string, options: InitializeOptions): Promise<string[]> {
    if (!options.autoUnseal && options.threshold > 1 !== options.shares > 1) {
      throw new VaultError(
        'invalid',
        'threshold must be above 1 when there are several shares, and 1 for a single share',
      );
    }
    try {
      return await this.db.transaction().execute(async (trx) => {
        if (await this.seals.readKeyring(trx, clusterId)) {
          throw new VaultError('conflict', `vault cluster ${clusterId} is already initialised`);
        }
        const keys = await this.seals.createKeyring(trx, clusterId, options, this.now());
        await new AuthMethodStore(trx, clusterId, this.now).enable('token/', 'token', '', {
          default_lease_ttl: options.defaultLeaseTtlSeconds ?? DEFAULT_TOKEN_CONFIG.default_lease_ttl,
          max_lease_ttl:
            options.maxLeaseTtlSeconds ??
            Math.max(DEFAULT_TOKEN_CONFIG.max_lease_ttl, options.defaultLeaseTtlSeconds ?? 0),
        });
        return keys;
      });
    } catch (error) {
      if (error instanceof RangeError) throw new VaultError('invalid', error.message);
      throw error;
    }
  }

  async isInitialized(clusterId: string): Promise<boolean> {
    return (await this.seals.readKeyring(this.db, clusterId)) !== undefined;
  }

  /** Every initialised cluster id, for collecting keyrings whose VaultCluster is gone. */
  async clusterIds(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('vault_keyrings')
      .select('cluster_id')
      .orderBy('cluster_id')
      .execute();
    return rows.map((row) => row.cluster_id);
  }

  /** Removes every record of the cluster: keys, secrets, tokens, audit log. */
  async destroy(clusterId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const table of VAULT_TABLES) {
        await trx.deleteFrom(table).where('cluster_id', '=', clusterId).execute();
      }
    });
    this.seals.forget(clusterId);
  }
}
