import type { Kysely } from 'kysely';
import type { DataPlaneSchema, VaultAuthRolesTable } from '../data-plane/schema.js';
import { mountPath } from './auth-methods.js';
import { VaultError } from './vault-error.js';

const ROLE_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function checkRoleName(name: string): void {
  if (!ROLE_NAME.test(name)) {
    throw new VaultError(
      'invalid',
      `invalid role name ${JSON.stringify(name)}: letters, digits and _ . -, at most 128 characters`,
    );
  }
}

/** A stored role: its settings as written, and the approle role id. */
export interface StoredRole<Config> {
  name: string;
  roleId: string | null;
  config: Config;
}

/** Roles of one auth method mount; the settings are JSON the method's module defines. */
export class AuthRoleStore<Config> {
  private readonly db: Kysely<DataPlaneSchema>;
  private readonly mount: string;

  constructor(
    db: Kysely<DataPlaneSchema>,
    private readonly clusterId: string,
    mount: string,
    private readonly now: () => Date,
  ) {
    this.db = db;
    this.mount = mountPath(mount);
  }

  /** Creates or replaces the role; an existing role keeps its role id. */
  async write(name: string, config: Config, newRoleId: () => string | null): Promise<StoredRole<Config>> {
    checkRoleName(name);
    const existing = await this.find(name);
    const now = this.now().toISOString();
    if (existing) {
      await this.db
        .updateTable('vault_auth_roles')
        .set({ config: JSON.stringify(config), updated_at: now })
        .where('cluster_id', '=', this.clusterId)
        .where('mount', '=', this.mount)
        .where('name', '=', name)
        .execute();
      return { ...existing, config };
    }
    const roleId = newRoleId();
    await this.db
      .insertInto('vault_auth_roles')
      .values({
        cluster_id: this.clusterId,
        mount: this.mount,
        name,
        role_id: roleId,
        config: JSON.stringify(config),
        created_at: now,
        updated_at: now,
      })
      .execute();
    return { name, roleId, config };
  }

  async read(name: string): Promise<StoredRole<Config>> {
    checkRoleName(name);
    const role = await this.find(name);
    if (!role) throw new VaultError('not_found', `role ${name} not found at auth/${this.mount}`);
    return role;
  }

  async find(name: string): Promise<StoredRole<Config> | undefined> {
    const row = await this.db
      .selectFrom('vault_auth_roles')
      .selectAll()
      .where('cluster_id', '=', this.clusterId)
      .where('mount', '=', this.mount)
      .where('name', '=', name)
      .executeTakeFirst();
    return row && this.stored(row);
  }

  async findByRoleId(roleId: string): Promise<StoredRole<Config> | undefined> {
    const row = await this.db
      .selectFrom('vault_auth_roles')
      .selectAll()
      .where('cluster_id', '=', this.clusterId)
      .where('mount', '=', this.mount)
      .where('role_id', '=', roleId)
      .executeTakeFirst();
    return row && this.stored(row);
  }

  async list(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('vault_auth_roles')
      .select('name')
      .where('cluster_id', '=', this.clusterId)
      .where('mount', '=', this.mount)
      .orderBy('name')
      .execute();
    return rows.map((row) => row.name);
  }

  async delete(name: string): Promise<void> {
    checkRoleName(name);
    await this.db
      .deleteFrom('vault_auth_roles')
      .where('cluster_id', '=', this.clusterId)
      .where('mount', '=', this.mount)
      .where('name', '=', name)
      .execute();
  }

  private stored(row: VaultAuthRolesTable): StoredRole<Config> {
    return { name: row.name, roleId: row.role_id, config: JSON.parse(row.config) as Config };
  }
}
