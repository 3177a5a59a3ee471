import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Kysely } from 'kysely';
import type { DataPlaneSchema } from '../data-plane/schema.js';
import { AuthMethodStore, type AuthMethod } from './auth-methods.js';
import { AuthRoleStore } from './auth-roles.js';
import type { ClusterOperations } from './vault-engine.js';
import type { CreatedToken } from './tokens.js';
import { VaultError } from './vault-error.js';

/** A jwt role: which tokens it accepts and what the vault token it answers may do. */
export interface JwtRoleSettings {
  role_type: 'jwt';
  /** Empty: the method's bound_audiences. */
  bound_audiences: string[];
  /** The claim naming the user, recorded in the token's metadata. */
  user_claim: string;
  token_policies: string[];
  /** Seconds; 0 takes the token method's default. */
  token_ttl: number;
  /** Empty: any subject. */
  bound_subject: string;
  /** Claims the token must carry: one value, or any of a list. */
  bound_claims: Record<string, string | string[]>;
}

export interface JwtMethodConfig {
  oidc_discovery_url: string;
  oidc_client_id: string;
  bound_audiences: string[];
  default_role?: string;
}

/** Signature algorithms accepted, as Vault's default for OIDC providers. */
const ALGORITHMS = ['RS256', 'ES256'];
const DISCOVERY_TIMEOUT_MS = 5_000;
const DISCOVERY_CACHE_MS = 10 * 60_000;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Outbound fetches go to https URLs only, or plain http on a loopback address (local providers). */
function checkOutboundUrl(value: unknown, what: string): URL {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  const allowed =
    url !== undefined &&
    (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)));
  if (!url || !allowed) {
    throw new VaultError('invalid', `${what} must be an https URL (http only for a loopback address)`);
  }
  return url;
}

interface Provider {
  issuer: string;
  keys: ReturnType<typeof createRemoteJWKSet>;
  fetchedAt: number;
}

/**
 * OIDC providers' discovery documents and signing keys, cached per discovery URL (keys through
 * jose's remote key set, which refetches on an unknown key id). One per process.
 */
export class OidcProviders {
  private readonly providers = new Map<string, Provider>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  async provider(discoveryUrl: string): Promise<Provider> {
    const cached = this.providers.get(discoveryUrl);
    if (cached && this.now().getTime() - cached.fetchedAt < DISCOVERY_CACHE_MS) return cached;
    const base = checkOutboundUrl(discoveryUrl, 'oidc_discovery_url');
    const documentUrl = `${base.href.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    let document: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const response = await fetch(documentUrl, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS) });
      if (!response.ok) throw new Error(`status ${response.status}`);
      document = (await response.json()) as typeof document;
    } catch (error) {
      throw new VaultError(
        'invalid',
        `error fetching the OIDC discovery document at ${documentUrl}: ${(error as Error).message}`,
      );
    }
    if (typeof document.issuer !== 'string' || document.issuer === '') {
      throw new VaultError('invalid', `the OIDC discovery document at ${documentUrl} names no issuer`);
    }
    const provider: Provider = {
      issuer: document.issuer,
      keys: createRemoteJWKSet(checkOutboundUrl(document.jwks_uri, 'the discovery document jwks_uri'), {
        timeoutDuration: DISCOVERY_TIMEOUT_MS,
      }),
      fetchedAt: this.now().getTime(),
    };
    this.providers.set(discoveryUrl, provider);
    return provider;
  }
}

/** What a verified login carries into the token. */
export interface JwtIdentity {
  role: string;
  user: string;
}

function claimMatches(actual: unknown, expected: string | string[]): boolean {
  const allowed = Array.isArray(expected) ? expected : [expected];
  const values = Array.isArray(actual) ? actual : [actual];
  return values.some((value) => typeof value === 'string' && allowed.includes(value));
}

function checkBindings(payload: JWTPayload, role: JwtRoleSettings): string {
  if (role.bound_subject !== '' && payload.sub !== role.bound_subject) {
    throw new VaultError('invalid', 'sub claim does not match the bound subject');
  }
  for (const [claim, expected] of Object.entries(role.bound_claims)) {
    if (!claimMatches(payload[claim], expected)) {
      throw new VaultError(
        'invalid',
        `claim ${JSON.stringify(claim)} does not match any associated bound claim values`,
      );
    }
  }
  const user = payload[role.user_claim];
  if (typeof user !== 'string' || user === '') {
    throw new VaultError('invalid', `claim ${JSON.stringify(role.user_claim)} not found in token`);
  }
  return user;
}

/** A jwt auth method mount: its roles, and logins with a JWT from the configured OIDC provider. */
export class JwtMethod {
  private readonly roles: AuthRoleStore<JwtRoleSettings>;
  private readonly methods: AuthMethodStore;

  constructor(
    db: Kysely<DataPlaneSchema>,
    clusterId: string,
    private readonly mount: string,
    private readonly now: () => Date,
  ) {
    this.roles = new AuthRoleStore(db, clusterId, mount, now);
    this.methods = new AuthMethodStore(db, clusterId, now);
  }

  async config(): Promise<JwtMethodConfig> {
    const method: AuthMethod = await this.methods.read(this.mount);
    if (method.type !== 'jwt') {
      throw new VaultError('not_found', `auth/${method.path} is a ${method.type} method, not jwt`);
    }
    return method.config as unknown as JwtMethodConfig;
  }

  async writeRole(name: string, settings: JwtRoleSettings): Promise<void> {
    await this.config();
    if (settings.user_claim === '') throw new VaultError('invalid', 'user_claim is required');
    await this.roles.write(name, settings, () => null);
  }

  async readRole(name: string): Promise<JwtRoleSettings & { name: string }> {
    await this.config();
    return { name, ...(await this.roles.read(name)).config };
  }

  async listRoles(): Promise<string[]> {
    await this.config();
    return this.roles.list();
  }

  async deleteRole(name: string): Promise<void> {
    await this.config();
    await this.roles.delete(name);
  }

  /**
   * Verifies `jwt` for `roleName` (the method's default_role when empty): signature by a key of
   * the provider's key set, issuer = the discovery document's issuer, an audience among the
   * role's (or the method's) bound audiences, time claims against this cluster's clock, then the
   * role's subject and claim bindings. Answers 400 naming what failed.
   */
  async verify(roleName: string, jwt: string, providers: OidcProviders): Promise<JwtIdentity> {
    const config = await this.config();
    const name = roleName !== '' ? roleName : (config.default_role ?? '');
    if (name === '') throw new VaultError('invalid', 'missing role');
    const role = (await this.roles.find(name))?.config;
    if (!role) throw new VaultError('invalid', `role ${JSON.stringify(name)} could not be found`);
    if (jwt === '') throw new VaultError('invalid', 'missing token');
    const provider = await providers.provider(config.oidc_discovery_url);
    const audiences = role.bound_audiences.length > 0 ? role.bound_audiences : config.bound_audiences;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(jwt, provider.keys, {
        issuer: provider.issuer,
        audience: audiences,
        algorithms: ALGORITHMS,
        currentDate: this.now(),
      }));
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) {
        throw new VaultError('invalid', `error validating token: ${error.message}`);
      }
      throw error;
    }
    return { role: name, user: checkBindings(payload, role) };
  }

  /** The vault token for a verified identity, created in the caller's transaction. */
  async issueToken(operations: ClusterOperations, identity: JwtIdentity): Promise<CreatedToken> {
    const role = (await this.roles.find(identity.role))?.config;
    if (!role) throw new VaultError('invalid', `role ${JSON.stringify(identity.role)} could not be found`);
    return operations.createToken({
      display_name: `jwt-${identity.user}`,
      ttl: role.token_ttl,
      policies: role.token_policies,
      meta: { role: identity.role, [role.user_claim]: identity.user },
    });
  }
}
