import type { Kysely } from 'kysely';
import type { DataPlaneSchema } from '../data-plane/schema.js';
import { createHash, randomUUID } from 'node:crypto';
import { mountPath } from './auth-methods.js';
import { AuthRoleStore } from './auth-roles.js';
import type { ClusterOperations } from './vault-engine.js';
import type { CreatedToken } from './tokens.js';
import { VaultError } from './vault-error.js';

/** What an approle role grants and how long its credentials live (seconds; 0 = the default). */
export interface AppRoleSettings {
  token_policies: string[];
  token_ttl: number;
  token_max_ttl: number;
  /** 0: secret ids never expire. */
  secret_id_ttl: number;
}

export interface AppRole extends AppRoleSettings {
  name: string;
  role_id: string;
}

export interface CreatedSecretId {
  /** Shown once: only its SHA-256 is kept. */
  secret_id: string;
  secret_id_accessor: string;
  secret_id_ttl: number;
  secret_id_num_uses: number;
}

const hashSecretId = (secretId: string): string =>
  createHash('sha256').update(secretId, 'utf8').digest('hex');

/** The same answer for an unknown role id, an unknown secret id and an expired one: no oracle. */
const invalidCredentials = (): VaultError => new VaultError('invalid', 'invalid role or secret ID');

/**
 * An approle auth method mount: roles, their role ids, secret ids (stored hashed, shown once) and
 * the login that trades a role id and secret id for a token carrying the role's policies.
 */
export class AppRoleMethod {
  private readonly roles: AuthRoleStore<AppRoleSettings>;
  private readonly db: Kysely<DataPlaneSchema>;

  constructor(
    private readonly operations: ClusterOperations,
    private readonly mount: string,
    private readonly now: () => Date,
  ) {
    this.roles = new AuthRoleStore(operations.db, operations.clusterId, mount, now);
    this.db = operations.db;
  }

  /** Creates or updates a role; settings not given take the method's defaults (or keep their value). */
  async writeRole(name: string, settings: Partial<AppRoleSettings>): Promise<void> {
    const defaults = await this.methodDefaults();
    const current = (await this.roles.find(name))?.config ?? defaults;
    const merged: AppRoleSettings = {
      token_policies: settings.token_policies ?? current.token_policies,
      token_ttl: settings.token_ttl ?? current.token_ttl,
      token_max_ttl: settings.token_max_ttl ?? current.token_max_ttl,
      secret_id_ttl: settings.secret_id_ttl ?? current.secret_id_ttl,
    };
    if (merged.token_max_ttl > 0 && merged.token_ttl > merged.token_max_ttl) {
      throw new VaultError('invalid', 'token_ttl must not exceed token_max_ttl');
    }
    await this.roles.write(name, merged, () => randomUUID());
  }

  async readRole(name: string): Promise<AppRole> {
    await this.methodDefaults();
    const role = await this.roles.read(name);
    return { name, role_id: role.roleId ?? '', ...role.config };
  }

  async listRoles(): Promise<string[]> {
    await this.methodDefaults();
    return this.roles.list();
  }

  async deleteRole(name: string): Promise<void> {
    await this.methodDefaults();
    await this.roles.delete(name);
    await this.db
      .deleteFrom('vault_approle_secret_ids')
      .where('cluster_id', '=', this.operations.clusterId)
      .where('mount', '=', mountPath(this.mount))
      .where('role_name', '=', name)
      .execute();
  }

  /** A new secret id for the role; its value exists only in this answer. */
  async createSecretId(name: string): Promise<CreatedSecretId> {
    const role = await this.readRole(name);
    const secretId = randomUUID();
    const accessor = randomUUID();
    const now = this.now();
    await this.db
      .insertInto('vault_approle_secret_ids')
      .values({
        secret_id_hash: hashSecretId(secretId),
        cluster_id: this.operations.clusterId,
        mount: mountPath(this.mount),
        role_name: name,
        accessor,
        created_at: now.toISOString(),
        expire_time:
          role.secret_id_ttl > 0 ? new Date(now.getTime() + role.secret_id_ttl * 1000).toISOString() : null,
      })
      .execute();
    return {
      secret_id: secretId,
      secret_id_accessor: accessor,
      secret_id_ttl: role.secret_id_ttl,
      secret_id_num_uses: 0,
    };
  }

  /** Checks the role id and secret id and answers a token with the role's policies. */
  async login(roleId: string, secretId: string): Promise<CreatedToken> {
    await this.methodDefaults();
    const role = roleId === '' ? undefined : await this.roles.findByRoleId(roleId);
    if (!role || secretId === '') throw invalidCredentials();
    const stored = await this.db
      .selectFrom('vault_approle_secret_ids')
      .select(['role_name', 'expire_time'])
      .where('cluster_id', '=', this.operations.clusterId)
      .where('mount', '=', mountPath(this.mount))
      .where('secret_id_hash', '=', hashSecretId(secretId))
      .executeTakeFirst();
    const expired = stored?.expire_time != null && stored.expire_time <= this.now().toISOString();
    if (!stored || stored.role_name !== role.name || expired) throw invalidCredentials();
    const { token_ttl: ttl, token_max_ttl: maxTtl } = role.config;
    return this.operations.createToken({
      display_name: `approle-${role.name}`,
      ttl: maxTtl > 0 && (ttl === 0 || ttl > maxTtl) ? maxTtl : ttl,
      policies: role.config.token_policies,
      meta: { role_name: role.name },
    });
  }

  /** The method's settings as role defaults; 404 when no approle method is enabled at the mount. */
  private async methodDefaults(): Promise<AppRoleSettings> {
    const method = await this.operations.authMethods.read(this.mount);
    if (method.type !== 'approle') {
      throw new VaultError('not_found', `auth/${method.path} is a ${method.type} method, not approle`);
    }
    const config = method.config as Partial<AppRoleSettings>;
    return {
      token_policies: config.token_policies ?? [],
      token_ttl: config.token_ttl ?? 0,
      token_max_ttl: config.token_max_ttl ?? 0,
      secret_id_ttl: config.secret_id_ttl ?? 0,
    };
  }
}
