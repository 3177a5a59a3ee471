import path from 'node:path';
import type { LevelWithSilent } from 'pino';

/** Everything the process reads from its environment, validated once at start-up. */
export interface Config {
  port: number;
  /** The HTTPS port of the embedded Kubernetes API (kubectl sends tokens only over TLS). */
  kubeApiPort: number;
  host: string;
  dataDir: string;
  /** The public URL links and addresses are built from. */
  baseUrl: string;
  /** False when `baseUrl` is only the default: the process then takes the address it bound. */
  baseUrlConfigured: boolean;
  /** `postgres://…` for PostgreSQL; absent means the SQLite file in the data dir. */
  databaseUrl: string | undefined;
  kubeconfig: string | undefined;
  logLevel: LevelWithSilent;
  bodyLimitBytes: number;
  /**
   * Which proxies' `X-Forwarded-For` to believe: `false` (none), a hop count, or addresses and
   * CIDRs. Without it, every anonymous caller behind an ingress shares the ingress's rate limit.
   */
  trustProxy: boolean | number | string[];
  rateLimit: { perMinute: number; perSecond: number };
  garbageCollection: { dryRun: boolean; retentionDays: number };
  oauth: OAuthConfig;
  /**
   * The platform key (`CLOUDPLANE_KMS_KEY`, 32 bytes) every secret at rest is sealed under; when
   * absent, the embedded mode keeps a generated one in the data dir.
   */
  kmsKey: Buffer | undefined;
  /** When set, `/metrics` answers only `Authorization: Bearer <this token>`. */
  metricsToken: string | undefined;
  accounts: AccountsConfig;
  mail: MailConfig;
  vpc: VpcConfig;
  integrations: IntegrationsConfig;
}

/** The monitoring sites a monitor integration may name. */
export type MonitorSite = 'datadoghq.com' | 'datadoghq.eu';

/** Third-party providers: where each one answers, and what outbound requests may reach. */
export interface IntegrationsConfig {
  /**
   * Allow outbound requests to private, loopback and link-local addresses, and plain http
   * (`CLOUDPLANE_EGRESS_ALLOW_PRIVATE`, default false: only public https).
   */
  allowPrivateEgress: boolean;
  codehostUrl: string;
  edgenetUrl: string;
  monitorUrls: Record<MonitorSite, string>;
  pagerUrl: string;
  /** The platform's codehost app, which codehost integrations are installations of. */
  codehostApp: { appId: string; privateKey: string } | undefined;
  /** Deliveries of one event before it is given up as dead. */
  eventMaxAttempts: number;
}

/** Networking: where VPCs may live, how many an organization may hold, where NAT addresses come from. */
export interface VpcConfig {
  /** Region names a VPC may name; each has the availability zones `<region>a`, `b` and `c`. */
  regions: string[];
  /** VPCs one organization may hold at once. */
  limitPerOrganization: number;
  /** The IPv4 block NAT gateways take their public addresses from. */
  natPublicIpPool: string;
}

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
}

/** Outgoing e-mail. Without an SMTP URL, messages are written to `<data dir>/outbox` as .eml files. */
export interface MailConfig {
  smtpUrl: string | undefined;
  from: string;
}

/** OAuth login. A provider is configured when its client id is set, and absent otherwise. */
export interface OAuthConfig {
  /** Where a login may send the browser back to; a request's `redirect_uri` must equal one exactly. */
  redirectUris: string[];
  identity: OidcProviderConfig | undefined;
  codehost: CodehostProviderConfig | undefined;
}

/** An OpenID Connect provider, found through discovery from its issuer. */
export interface OidcProviderConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** An OAuth 2.0 provider with GitHub-style endpoints and no discovery. */
export interface CodehostProviderConfig {
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  userUrl: string;
  emailsUrl: string;
  /** Space-separated, as sent in the authorization request. */
  scopes: string;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    expected: string,
    got: string,
  ) {
    super(`${variable}: expected ${expected}, got ${JSON.stringify(got)}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `an integer from ${min} to ${max}`, raw);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const normalised = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalised)) return true;
  if (['0', 'false', 'no', 'off'].includes(normalised)) return false;
  throw new ConfigError(name, 'true or false', raw);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `a URL (${protocols.join(' or ')})`, raw);
  }
  if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
    throw new ConfigError(name, `a URL (${protocols.join(' or ')})`, raw);
  }
  return raw;
}

/** `false`, `true`, a hop count, or a comma list of addresses and CIDRs (Express's `trust proxy`). */
function trustProxy(env: Env): boolean | number | string[] {
  const name = 'CLOUDPLANE_TRUST_PROXY';
  const raw = env[name]?.trim();
  if (!raw || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim());
  const address = /^[0-9a-f:.]+(\/\d{1,3})?$/i;
  if (entries.every((entry) => address.test(entry) && (entry.includes('.') || entry.includes(':'))))
    return entries;
  throw new ConfigError(name, 'false, true, a hop count, or comma-separated addresses and CIDRs', raw);
}

const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2 };

function byteSize(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(raw.trim());
  const bytes = match ? Number(match[1]) * SIZE_UNITS[(match[2] ?? 'b').toLowerCase()]! : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1024 || bytes > 64 * 1024 ** 2) {
    throw new ConfigError(name, 'a size from 1kb to 64mb (for example 1mb or 262144)', raw);
  }
  return bytes;
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * A provider endpoint. Codes, secrets and tokens travel to it, so it must be https; plain http is
 * accepted only for a loopback host, where nothing crosses a network.
 */
function providerUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim() || fallback;
  const parsed = URL.canParse(raw) ? new URL(raw) : undefined;
  const secure =
    parsed?.protocol === 'https:' || (parsed?.protocol === 'http:' && isLoopbackHost(parsed.hostname));
  if (!secure) throw new ConfigError(name, 'an https URL (http only on a loopback host)', raw);
  return raw;
}

/** A setting a configured provider cannot do without; `because` names what made it necessary. */
function requiredWith(env: Env, name: string, because: string): string {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(name, `a value when ${because} is set`, env[name] ?? '');
  return value;
}

function redirectUris(env: Env): string[] {
  const name = 'CLOUDPLANE_OAUTH_REDIRECT_URIS';
  const entries = (env[name] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const parsed = URL.canParse(entry) ? new URL(entry) : undefined;
    // The tokens are handed over in the fragment, so the URI must not bring one of its own.
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || entry.includes('#')) {
      throw new ConfigError(name, 'comma-separated http or https URLs without a fragment', entry);
    }
  }
  return entries;
}

function identityProvider(env: Env): OidcProviderConfig | undefined {
  const clientIdName = 'CLOUDPLANE_OAUTH_IDENTITY_CLIENT_ID';
  const clientId = env[clientIdName]?.trim();
  if (!clientId) return undefined;
  const issuerName = 'CLOUDPLANE_OAUTH_IDENTITY_ISSUER';
  return {
    issuer: providerUrl(env, issuerName, requiredWith(env, issuerName, clientIdName)),
    clientId,
    clientSecret: requiredWith(env, 'CLOUDPLANE_OAUTH_IDENTITY_CLIENT_SECRET', clientIdName),
  };
}

function codehostProvider(env: Env): CodehostProviderConfig | undefined {
  const clientIdName = 'CLOUDPLANE_OAUTH_CODEHOST_CLIENT_ID';
  const clientId = env[clientIdName]?.trim();
  if (!clientId) return undefined;
  const prefix = 'CLOUDPLANE_OAUTH_CODEHOST';
  return {
    clientId,
    clientSecret: requiredWith(env, `${prefix}_CLIENT_SECRET`, clientIdName),
    authorizeUrl: providerUrl(env, `${prefix}_AUTHORIZE_URL`, 'https://github.com/login/oauth/authorize'),
    tokenUrl: providerUrl(env, `${prefix}_TOKEN_URL`, 'https://github.com/login/oauth/access_token'),
    userUrl: providerUrl(env, `${prefix}_USER_URL`, 'https://api.github.com/user'),
    emailsUrl: providerUrl(env, `${prefix}_EMAILS_URL`, 'https://api.github.com/user/emails'),
    scopes:
      env[`${prefix}_SCOPES`]
        ?.split(/[\s,]+/)
        .filter((scope) => scope !== '')
        .join(' ') || 'read:user user:email',
  };
}

function oauthConfig(env: Env): OAuthConfig {
  const identity = identityProvider(env);
  const codehost = codehostProvider(env);
  const uris = redirectUris(env);
  if ((identity || codehost) && uris.length === 0) {
    throw new ConfigError(
      'CLOUDPLANE_OAUTH_REDIRECT_URIS',
      'at least one URL when an OAuth provider is configured',
      '',
    );
  }
  return { redirectUris: uris, identity, codehost };
}

const KMS_KEY_BYTES = 32;

/** The value is a secret: errors say what is wrong with it without repeating it. */
function kmsKey(env: Env): Buffer | undefined {
  const name = 'CLOUDPLANE_KMS_KEY';
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const expected = `${KMS_KEY_BYTES} bytes in base64 (for example from: openssl rand -base64 32)`;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)) throw new ConfigError(name, expected, '(not shown) not base64');
  const key = Buffer.from(raw, raw.includes('-') || raw.includes('_') ? 'base64url' : 'base64');
  if (key.length !== KMS_KEY_BYTES) {
    throw new ConfigError(name, expected, `(not shown) ${key.length} bytes`);
  }
  return key;
}

function metricsToken(env: Env): string | undefined {
  const name = 'CLOUDPLANE_METRICS_TOKEN';
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^[\x21-\x7e]{16,}$/.test(raw)) {
    throw new ConfigError(name, 'at least 16 printable characters without spaces', '(not shown)');
  }
  return raw;
}

/** An SMTP URL may carry a password: a rejected one is shown with the password masked. */
function smtpUrl(env: Env): string | undefined {
  const name = 'CLOUDPLANE_SMTP_URL';
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const parsed = URL.canParse(raw) ? new URL(raw) : undefined;
  if (parsed?.protocol === 'smtp:' || parsed?.protocol === 'smtps:') return raw;
  if (parsed?.password) parsed.password = '****';
  throw new ConfigError(name, 'a URL (smtp or smtps)', parsed ? parsed.toString() : '(not shown) not a URL');
}

function mailFrom(env: Env): string {
  const name = 'CLOUDPLANE_MAIL_FROM';
  const raw = env[name]?.trim() || 'cloudplane <no-reply@localhost>';
  if (!/^([^<>@\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(raw)) {
    throw new ConfigError(name, 'an address such as "cloudplane <no-reply@example.com>"', raw);
  }
  return raw;
}

const REGION_NAME = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

function regions(env: Env): string[] {
  const name = 'CLOUDPLANE_REGIONS';
  const raw = env[name]?.trim() || 'us-east-1,us-west-2,eu-west-1';
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    if (!REGION_NAME.test(entry))
      throw new ConfigError(name, 'comma-separated region names like us-east-1', entry);
  }
  if (entries.length === 0) throw new ConfigError(name, 'at least one region name', raw);
  return [...new Set(entries)];
}

function ipv4Block(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim() || fallback;
  const match = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(raw);
  const octets = match?.[1]?.split('.').map(Number) ?? [];
  const prefix = Number(match?.[2]);
  const valid = octets.length === 4 && octets.every((octet) => octet <= 255) && prefix >= 8 && prefix <= 32;
  if (!valid) throw new ConfigError(name, 'an IPv4 block from /8 to /32 such as 203.0.113.0/24', raw);
  return raw;
}

function vpcConfig(env: Env): VpcConfig {
  return {
    regions: regions(env),
    limitPerOrganization: integer(env, 'CLOUDPLANE_VPC_LIMIT', 5, 1, 10_000),
    natPublicIpPool: ipv4Block(env, 'CLOUDPLANE_NAT_PUBLIC_IP_POOL', '203.0.113.0/24'),
  };
}

const MONITOR_SITES: readonly MonitorSite[] = ['datadoghq.com', 'datadoghq.eu'];

function monitorUrls(env: Env): Record<MonitorSite, string> {
  const name = 'CLOUDPLANE_PROVIDER_MONITOR_URLS';
  const urls: Record<MonitorSite, string> = {
    'datadoghq.com': 'https://api.datadoghq.com',
    'datadoghq.eu': 'https://api.datadoghq.eu',
  };
  const raw = env[name]?.trim();
  if (!raw) return urls;
  const expected = 'comma-separated <site>=<url> with sites datadoghq.com and datadoghq.eu';
  for (const entry of raw.split(',').map((item) => item.trim())) {
    const separator = entry.indexOf('=');
    const site = entry.slice(0, separator) as MonitorSite;
    if (separator < 0 || !MONITOR_SITES.includes(site)) throw new ConfigError(name, expected, entry);
    urls[site] = providerUrl({ [name]: entry.slice(separator + 1) }, name, '');
  }
  return urls;
}

function codehostApp(env: Env): IntegrationsConfig['codehostApp'] {
  const idName = 'CLOUDPLANE_PROVIDER_CODEHOST_APP_ID';
  const appId = env[idName]?.trim();
  if (!appId) return undefined;
  if (!/^\d+$/.test(appId)) throw new ConfigError(idName, 'a numeric app id', appId);
  const keyName = 'CLOUDPLANE_PROVIDER_CODEHOST_APP_PRIVATE_KEY';
  const privateKey = requiredWith(env, keyName, idName).replace(/\\n/g, '\n');
  if (!privateKey.includes('PRIVATE KEY-----')) {
    throw new ConfigError(keyName, 'a PEM private key', '(not shown) not PEM');
  }
  return { appId, privateKey };
}

function integrationsConfig(env: Env): IntegrationsConfig {
  return {
    allowPrivateEgress: boolean(env, 'CLOUDPLANE_EGRESS_ALLOW_PRIVATE', false),
    codehostUrl: providerUrl(env, 'CLOUDPLANE_PROVIDER_CODEHOST_URL', 'https://api.github.com'),
    edgenetUrl: providerUrl(env, 'CLOUDPLANE_PROVIDER_EDGENET_URL', 'https://api.cloudflare.com/client/v4'),
    monitorUrls: monitorUrls(env),
    pagerUrl: providerUrl(env, 'CLOUDPLANE_PROVIDER_PAGER_URL', 'https://events.pagerduty.com'),
    codehostApp: codehostApp(env),
    eventMaxAttempts: integer(env, 'CLOUDPLANE_EVENT_MAX_ATTEMPTS', 8, 1, 100),
  };
}

function accountsConfig(env: Env): AccountsConfig {
  return {
    accessTokenTtlSeconds: integer(env, 'CLOUDPLANE_ACCESS_TOKEN_TTL', 900, 60, 86_400),
    refreshTokenTtlSeconds: integer(env, 'CLOUDPLANE_REFRESH_TOKEN_TTL', 30 * 86_400, 3600, 365 * 86_400),
    loginMaxFailures: integer(env, 'CLOUDPLANE_LOGIN_MAX_FAILURES', 5, 1, 1000),
    loginMaxFailuresPerAddress: integer(env, 'CLOUDPLANE_LOGIN_MAX_FAILURES_PER_ADDRESS', 50, 1, 100_000),
    loginLockoutSeconds: integer(env, 'CLOUDPLANE_LOGIN_LOCKOUT_SECONDS', 900, 60, 86_400),
  };
}

/** Reads and checks the environment; throws `ConfigError` naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = env.CLOUDPLANE_HOST?.trim() || '127.0.0.1';
  const dataDir = path.resolve(env.CLOUDPLANE_DATA_DIR?.trim() || './.cloudplane');
  const baseUrl = (url(env, 'CLOUDPLANE_BASE_URL', ['http', 'https']) ?? `http://127.0.0.1:${port}`).replace(
    /\/+$/,
    '',
  );
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres', 'postgresql']);
  const kubeconfig = env.KUBECONFIG?.trim() || undefined;
  const logLevelRaw = (env.CLOUDPLANE_LOG_LEVEL ?? 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(logLevelRaw as LevelWithSilent)) {
    throw new ConfigError('CLOUDPLANE_LOG_LEVEL', `one of ${LOG_LEVELS.join(', ')}`, logLevelRaw);
  }
  return {
    port,
    kubeApiPort: integer(env, 'CLOUDPLANE_KUBE_API_PORT', 6443, 0, 65535),
    host,
    dataDir,
    baseUrl,
    baseUrlConfigured: Boolean(env.CLOUDPLANE_BASE_URL?.trim()),
    databaseUrl,
    kubeconfig,
    logLevel: logLevelRaw as LevelWithSilent,
    bodyLimitBytes: byteSize(env, 'CLOUDPLANE_BODY_LIMIT', 1024 ** 2),
    trustProxy: trustProxy(env),
    rateLimit: {
      perMinute: integer(env, 'CLOUDPLANE_RATE_LIMIT_PER_MINUTE', 1000, 1, 10_000_000),
      perSecond: integer(env, 'CLOUDPLANE_RATE_LIMIT_PER_SECOND', 100, 1, 1_000_000),
    },
    garbageCollection: {
      dryRun: boolean(env, 'CLOUDPLANE_GC_DRY_RUN', true),
      retentionDays: integer(env, 'CLOUDPLANE_GC_RETENTION_DAYS', 30, 1, 3650),
    },
    oauth: oauthConfig(env),
    kmsKey: kmsKey(env),
    metricsToken: metricsToken(env),
    accounts: accountsConfig(env),
    mail: { smtpUrl: smtpUrl(env), from: mailFrom(env) },
    vpc: vpcConfig(env),
    integrations: integrationsConfig(env),
  };
}
