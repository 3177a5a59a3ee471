import { commaList, ConfigError, integer, type Env } from './env.js';

/** Token lifetimes and login lock-out thresholds. */
export interface AccountsConfig {
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** Failed logins of one account within the lock-out window that lock it. */
  loginMaxFailures: number;
  /** Failed logins from one client address within the window that lock the address. */
  loginMaxFailuresPerAddress: number;
  /** Both the window failures are counted in and how long a lock-out lasts. */
  loginLockoutSeconds: number;
  /**
   * E-mail addresses (lower-case) of the platform's operators, who may read what spans every
   * organization, such as the garbage collection reports.
   */
  platformAdmins: string[];
}

function emailList(env: Env, name: string): string[] {
  const emails = commaList(env[name]).map((email) => email.toLowerCase());
  const malformed = emails.find((email) => !/^[^@\s]+@[^@\s]+$/.test(email));
  if (malformed !== undefined) throw new ConfigError(name, 'comma-separated e-mail addresses', malformed);
  return emails;
}

export function accountsConfig(env: Env): AccountsConfig {
  return {
    accessTokenTtlSeconds: integer(env, 'CLOUDPLANE_ACCESS_TOKEN_TTL', 900, 60, 86_400),
    refreshTokenTtlSeconds: integer(env, 'CLOUDPLANE_REFRESH_TOKEN_TTL', 30 * 86_400, 3600, 365 * 86_400),
    loginMaxFailures: integer(env, 'CLOUDPLANE_LOGIN_MAX_FAILURES', 5, 1, 1000),
    loginMaxFailuresPerAddress: integer(env, 'CLOUDPLANE_LOGIN_MAX_FAILURES_PER_ADDRESS', 50, 1, 100_000),
    loginLockoutSeconds: integer(env, 'CLOUDPLANE_LOGIN_LOCKOUT_SECONDS', 900, 60, 86_400),
    platformAdmins: emailList(env, 'CLOUDPLANE_PLATFORM_ADMINS'),
  };
}
