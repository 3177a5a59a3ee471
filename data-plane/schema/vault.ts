import type { Flag } from './columns.js';

/** Vault clusters: keys, secrets, policies, tokens, auth methods, transit keys, audit. */
export interface VaultTables {
  vault_keyrings: VaultKeyringsTable;
  vault_secret_metadata: VaultSecretMetadataTable;
  vault_secret_versions: VaultSecretVersionsTable;
  vault_policies: VaultPoliciesTable;
  vault_tokens: VaultTokensTable;
  vault_auth_methods: VaultAuthMethodsTable;
  vault_transit_keys: VaultTransitKeysTable;
  vault_audit_entries: VaultAuditEntriesTable;
  vault_auth_roles: VaultAuthRolesTable;
  vault_approle_secret_ids: VaultApproleSecretIdsTable;
}

/**
 * A vault cluster's keys. `sealed_barrier_key` is the barrier key sealed under the root key; the
 * root key itself is stored only sealed under the platform key, and only for auto-unseal
 * (`sealed_root_key`) or while the cluster is unsealed and replicas share unseal state
 * (`unsealed_root_key`). The audit HMAC salt is sealed under the platform key.
 */
export interface VaultKeyringsTable {
  cluster_id: string;
  secret_shares: number;
  secret_threshold: number;
  auto_unseal: Flag;
  sealed_barrier_key: string;
  sealed_root_key: string | null;
  unsealed_root_key: string | null;
  sealed_audit_salt: string;
  created_at: string;
}

/** A KV v2 secret path. `sealed_custom_metadata` is a sealed JSON object, or null. */
export interface VaultSecretMetadataTable {
  cluster_id: string;
  path: string;
  current_version: number;
  sealed_custom_metadata: string | null;
  created_at: string;
  updated_at: string;
}

/** One version of a secret: its data as a sealed JSON object, null once destroyed. */
export interface VaultSecretVersionsTable {
  cluster_id: string;
  path: string;
  version: number;
  sealed_data: string | null;
  size_bytes: number;
  created_at: string;
  deletion_time: string | null;
  destroyed: Flag;
}

export interface VaultPoliciesTable {
  cluster_id: string;
  name: string;
  description: string;
  rules: string;
  created_at: string;
  updated_at: string;
}

/** A vault token, found by the SHA-256 of its value; `accessor` names it without granting it. */
export interface VaultTokensTable {
  accessor: string;
  cluster_id: string;
  token_hash: string;
  display_name: string;
  /** JSON array of policy names. */
  policies: string;
  /** JSON object of string values: how the token was obtained (auth method, role). */
  meta: string;
  ttl: number;
  issue_time: string;
  expire_time: string;
  /** Renewals never extend a token past this instant. */
  max_expire_time: string;
  last_renewal_time: string;
  revoked_at: string | null;
}

/** An enabled auth method; `config` is JSON text and holds no secret. */
export interface VaultAuthMethodsTable {
  cluster_id: string;
  path: string;
  type: string;
  description: string;
  config: string;
  created_at: string;
}

/** A named transit key: every version's key material as one sealed JSON object. */
export interface VaultTransitKeysTable {
  cluster_id: string;
  name: string;
  latest_version: number;
  sealed_versions: string;
  created_at: string;
  rotated_at: string;
}

/** One audited vault request; `entry` is the JSON entry with its token fields already HMAC'd. */
export interface VaultAuditEntriesTable {
  id: string;
  cluster_id: string;
  timestamp: string;
  entry: string;
}

/** A role of an approle or jwt auth method (migration 0006_vault_auth_roles). */
export interface VaultAuthRolesTable {
  cluster_id: string;
  /** The method's mount path, ending in "/". */
  mount: string;
  name: string;
  /** The approle role id; null for jwt roles. */
  role_id: string | null;
  config: string;
  created_at: string;
  updated_at: string;
}

/** An approle secret id, stored only as its SHA-256. */
export interface VaultApproleSecretIdsTable {
  secret_id_hash: string;
  cluster_id: string;
  mount: string;
  role_name: string;
  accessor: string;
  created_at: string;
  /** Null: never expires. */
  expire_time: string | null;
}
