import type { Flag } from './columns.js';

/** Accounts, organizations, sessions, keys and logins. */
export interface AccountsTables {
  users: UsersTable;
  organizations: OrganizationsTable;
  organization_members: OrganizationMembersTable;
  organization_invitations: OrganizationInvitationsTable;
  organization_audit: OrganizationAuditTable;
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
  credential_epoch: CredentialEpochTable;
  rate_limit_counts: RateLimitCountsTable;
}

/** One row: moved forward by triggers whenever a credential may have ended or narrowed. */
export interface CredentialEpochTable {
  id: number;
  /** bigint: PostgreSQL answers it as a string. */
  epoch: number | string;
}

/**
 * A caller's request counts in the rate limiter's two windows, when replicas share them
 * (PostgreSQL; migration 0024). Ends are Unix milliseconds (bigint: PostgreSQL answers them as
 * strings). `key` is `principal:<rate limit key>` or `address:<client address>`.
 */
export interface RateLimitCountsTable {
  key: string;
  minute_used: number;
  minute_ends_at: number | string;
  second_used: number;
  second_ends_at: number | string;
}

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
  /** Set when an owner asked for the organization's deletion (migration 0010); it is under way. */
  deleting_at: string | null;
  deleting_by: string | null;
}

export type OrganizationRole = 'owner' | 'admin' | 'member' | 'viewer';

export interface OrganizationMembersTable {
  organization_id: string;
  user_id: string;
  role: OrganizationRole;
  created_at: string;
}

/** An invitation by e-mail to join an organization (migration 0010); the token is kept hashed. */
export interface OrganizationInvitationsTable {
  id: string;
  organization_id: string;
  /** Lowercase. */
  email: string;
  role: OrganizationRole;
  token_hash: string;
  invited_by: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  revoked_at: string | null;
}

/** Who changed what in an organization's membership, and when (migration 0010). */
export interface OrganizationAuditTable {
  id: string;
  organization_id: string;
  /** The user who acted. */
  actor_id: string;
  /** `member_added`, `member_removed`, `role_changed`, `invitation_sent`, `invitation_revoked`, … */
  action: string;
  /** The user or e-mail address acted on. */
  subject: string;
  /** JSON object. */
  details: string;
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
