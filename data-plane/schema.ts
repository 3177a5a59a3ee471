/**
 * The data-plane tables as Kysely sees them.
 *
 * Portable representations, identical on SQLite and PostgreSQL:
 * - timestamps are ISO-8601 UTC text from `Date.prototype.toISOString()`
 *   (`2024-05-01T03:00:00.000Z`). The fixed width makes text order chronological order, so
 *   range filters and `order by` work the same in both dialects, and rows read back as the same
 *   string everywhere (a `timestamptz` would come back as a `Date` from pg and a string from SQLite).
 * - JSON is text, written with `JSON.stringify` and read with `JSON.parse`.
 */
export interface DataPlaneSchema {
  job_runs: JobRunsTable;
  users: UsersTable;
  organizations: OrganizationsTable;
  organization_members: OrganizationMembersTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  email_tokens: EmailTokensTable;
  two_factor_challenges: TwoFactorChallengesTable;
  backup_codes: BackupCodesTable;
  api_keys: ApiKeysTable;
  login_failures: LoginFailuresTable;
  login_lockouts: LoginLockoutsTable;
  oauth_login_states: OAuthLoginStatesTable;
  oauth_identities: OAuthIdentitiesTable;
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
  vpc_cidr_claims: VpcCidrClaimsTable;
  vpc_tombstones: VpcTombstonesTable;
  vpc_public_ips: VpcPublicIpsTable;
  integration_credentials: IntegrationCredentialsTable;
  integration_tests: IntegrationTestsTable;
  integration_syncs: IntegrationSyncsTable;
  integration_events: IntegrationEventsTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  integration_signing_secrets: IntegrationSigningSecretsTable;
}

export type JobTrigger = 'schedule' | 'manual';
export type JobOutcome = 'running' | 'succeeded' | 'failed';

/** One run of a background job, written when it starts and again when it finishes. */
export interface JobRunsTable {
  id: string;
  job: string;
  trigger: JobTrigger;
  started_at: string;
  finished_at: string | null;
  outcome: JobOutcome;
  /** JSON object text: what the run looked at and did. */
  summary: string;
  error: string | null;
}

/** Flags are integers (0 or 1) so both dialects read them back alike. */
export type Flag = 0 | 1;

/** An account. `email` is stored lowercase; `password_hash` is null for accounts made through OAuth. */
export interface UsersTable {
  id: string;
  email: string;
  name: string;
  /** `scrypt$N$r$p$salt$hash`, see accounts/passwords.ts. */
  password_hash: string | null;
  avatar_url: string | null;
  email_verified: Flag;
  two_factor_enabled: Flag;
  /** The TOTP secret as a sealed box bound to `totp:<user id>`; set on enable, kept while enabled. */
  totp_secret: string | null;
  /** The last TOTP time step accepted: codes at or before it are refused. */
  totp_last_step: number | null;
  current_organization_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: string;
}

export type OrganizationRole = 'owner' | 'admin' | 'member';

export interface OrganizationMembersTable {
  organization_id: string;
  user_id: string;
  role: OrganizationRole;
  created_at: string;
}

/** A signed-in device. Access tokens name it (`sid`) and die with it. */
export interface SessionsTable {
  id: string;
  user_id: string;
  device: string;
  ip_address: string;
  location: string;
  created_at: string;
  last_active: string;
  /** When the newest refresh token of the session expires. */
  expires_at: string;
  revoked_at: string | null;
}

/** One refresh token of a session's family, by SHA-256; spent once it has been exchanged. */
export interface RefreshTokensTable {
  token_hash: string;
  session_id: string;
  created_at: string;
  expires_at: string;
  spent_at: string | null;
}

export type EmailTokenPurpose = 'verify_email' | 'reset_password';

/** A single-use link token sent by e-mail, by SHA-256. */
export interface EmailTokensTable {
  token_hash: string;
  user_id: string;
  purpose: EmailTokenPurpose;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** The temporary `session_token` of a login waiting for its second factor, by SHA-256. */
export interface TwoFactorChallengesTable {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A two-factor backup code, by HMAC under a key derived from the platform key. */
export interface BackupCodesTable {
  user_id: string;
  code_hash: string;
  used_at: string | null;
}

/** An API key of a user in one organization; only the SHA-256 of its secret part is kept. */
export interface ApiKeysTable {
  id: string;
  prefix: string;
  secret_hash: string;
  user_id: string;
  organization_id: string;
  name: string;
  /** JSON array of scope strings. */
  scopes: string;
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
}

/** One failed login of a subject (`account:<email>` or `address:<ip>`). */
export interface LoginFailuresTable {
  id: string;
  subject: string;
  occurred_at: string;
}

export interface LoginLockoutsTable {
  subject: string;
  locked_until: string;
}

/**
 * A login waiting for its provider's callback. Keyed by the SHA-256 of the `state` sent to the
 * provider; the PKCE verifier is sealed under a key derived from that state, so the row alone
 * can complete nothing. Single use: `used_at` is set when the callback claims it.
 */
export interface OAuthLoginStatesTable {
  state_hash: string;
  provider: string;
  /** The CSRF token the client sent, handed back to it unchanged. */
  client_state: string;
  redirect_uri: string;
  sealed_code_verifier: string;
  /** The OpenID Connect nonce; null for plain OAuth 2.0 providers. */
  nonce: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A provider account (`provider` + its `subject`) linked to one of our users. */
export interface OAuthIdentitiesTable {
  provider: string;
  subject: string;
  user_id: string;
  /** The verified e-mail the provider last reported, lowercase. */
  email: string;
  created_at: string;
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

/**
 * A VPC's or subnet's hold on its block within a scope (`region:<name>` for VPCs, `vpc:<id>` for
 * subnets). Written in the same serialised transaction as the overlap check, so two overlapping
 * blocks can never both be claimed; released when the resource is finally deleted.
 */
export interface VpcCidrClaimsTable {
  namespace: string;
  resource_id: string;
  kind: 'Vpc' | 'Subnet';
  scope: string;
  resource_name: string;
  cidr_block: string;
  created_at: string;
}

/** What remains of a deleted VPC, listed with `status=deleted` until garbage collection purges it. */
export interface VpcTombstonesTable {
  namespace: string;
  vpc_id: string;
  name: string;
  cidr_block: string;
  region: string;
  is_default: Flag;
  flow_logs_enabled: Flag;
  created_at: string;
  deleted_at: string;
}

/** A public address of the NAT pool held by one NAT gateway; the primary key keeps it unique. */
export interface VpcPublicIpsTable {
  address: string;
  allocation_id: string;
  namespace: string;
  nat_gateway_id: string;
  allocated_at: string;
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

/** One integration's credentials, sealed as a JSON object (migration 0007_integrations). */
export interface IntegrationCredentialsTable {
  id: string;
  integration_id: string;
  namespace: string;
  type: string;
  /** The provider account the credentials belong to; unique per organization and type. */
  account_key: string | null;
  /** A sealed box (security/sealed-box.ts) bound to `integration-credentials:<integration_id>`. */
  sealed_credentials: string;
  created_at: string;
  updated_at: string;
}

export type IntegrationRunStatus = 'in-progress' | 'passed' | 'failed';

/** One run of POST /integrations/:id/test. */
export interface IntegrationTestsTable {
  id: string;
  integration_id: string;
  namespace: string;
  status: IntegrationRunStatus;
  /** JSON `{connection, authentication, permissions, latency_ms}`; null while in progress. */
  result: string | null;
  /** JSON array of messages. */
  errors: string;
  started_at: string;
  completed_at: string | null;
}

export type IntegrationSyncStatus = 'in-progress' | 'success' | 'failed';

/** One run of POST /integrations/:id/codehost/sync. */
export interface IntegrationSyncsTable {
  id: string;
  integration_id: string;
  namespace: string;
  status: IntegrationSyncStatus;
  /** JSON array of `owner/repo` the sync found. */
  repositories: string;
  full_sync: Flag;
  errors: string;
  started_at: string;
  completed_at: string | null;
}

/**
 * `sending` is a claimed event under a lease; `failed` waits for `next_attempt_at`; `dead` has spent
 * its attempts (migration 0008_integration_events).
 */
export type IntegrationEventStatus = 'pending' | 'sending' | 'success' | 'failed' | 'dead';

/** One platform event bound for one integration. */
export interface IntegrationEventsTable {
  id: string;
  organization_id: string;
  integration_id: string;
  event_type: string;
  /** The id of what the event is about; the pager's dedup key. */
  subject: string;
  status: IntegrationEventStatus;
  /** JSON object. */
  payload: string;
  attempts: number;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
  sent_at: string | null;
  response_status: number | null;
  last_error: string | null;
}

/** One delivery of an event, outbound to a provider or inbound from the code host. */
export interface WebhookDeliveryAttemptsTable {
  id: string;
  webhook_id: string;
  integration_id: string;
  event: string;
  status: 'success' | 'failed';
  /** 0 when no HTTP answer came back. */
  status_code: number;
  duration_ms: number;
  timestamp: string;
  /** Unique: an inbound delivery id seen twice is a replay. */
  delivery_id: string;
}

/** The secret outbound events are signed with, sealed, one per integration. */
export interface IntegrationSigningSecretsTable {
  integration_id: string;
  sealed_secret: string;
  created_at: string;
}
