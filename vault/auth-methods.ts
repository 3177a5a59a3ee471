import type { Kysely } from 'kysely';
import type { DataPlaneSchema } from '../data-plane/schema.js';
import { VaultError } from './vault-error.js';

export const AUTH_METHOD_TYPES = ['token', 'jwt', 'approle'] as const;
export type AuthMethodType = (typeof AUTH_METHOD_TYPES)[number];

export interface TokenMethodConfig {
  default_lease_ttl: number;
  max_lease_ttl: number;
  force_no_cache: boolean;
  token_type: 'service';
}

export interface AuthMethod {
  type: AuthMethodType;
  description: string;
  /** The mount path, ending in "/". */
  path: string;
  config: Record<string, unknown>;
}

/** Vault's system defaults: 32 days for both. */
export const DEFAULT_TOKEN_CONFIG: TokenMethodConfig = {
  default_lease_ttl: 2_764_800,
  max_lease_ttl: 2_764_800,
  force_no_cache: false,
  token_type: 'service',
};

type ConfigRule = (value: unknown, key: string) => string | undefined;

const positiveInteger: ConfigRule = (value, key) =>
  Number.isInteger(value) && (value as number) > 0
    ? undefined
    : `${key} must be a positive integer (seconds)`;
const boolean: ConfigRule = (value, key) =>
  typeof value === 'boolean' ? undefined : `${key} must be a boolean`;
const nonEmptyString: ConfigRule = (value, key) =>
  typeof value === 'string' && value.trim() !== '' ? undefined : `${key} must be a non-empty string`;
const stringList: ConfigRule = (value, key) =>
  Array.isArray(value) &&
  value.length > 0 &&
  value.every((entry) => typeof entry === 'string' && entry !== '')
    ? undefined
    : `${key} must be a non-empty array of strings`;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const discoveryUrl: ConfigRule = (value, key) => {
  if (typeof value !== 'string') return `${key} must be a URL`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${key} must be a URL`;
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return `${key} must be an https URL (http only for a loopback address)`;
};

interface MethodSchema {
  rules: Record<string, ConfigRule>;
  required: string[];
}

const SCHEMAS: Record<AuthMethodType, MethodSchema> = {
  token: {
    rules: {
      default_lease_ttl: positiveInteger,
      max_lease_ttl: positiveInteger,
      force_no_cache: boolean,
      token_type: (value, key) => (value === 'service' ? undefined : `${key} must be "service"`),
    },
    required: [],
  },
  jwt: {
    rules: {
      oidc_discovery_url: discoveryUrl,
      oidc_client_id: nonEmptyString,
      bound_audiences: stringList,
      bound_issuer: nonEmptyString,
      default_role: nonEmptyString,
    },
    required: ['oidc_discovery_url', 'oidc_client_id', 'bound_audiences'],
  },
  approle: {
    rules: {
      token_ttl: positiveInteger,
      token_max_ttl: positiveInteger,
      token_policies: stringList,
      secret_id_ttl: positiveInteger,
    },
    required: [],
  },
};

/** Checks a method's config against its type; unknown keys are refused so a typo is not silently ignored. */
export function validateAuthConfig(type: AuthMethodType, config: Record<string, unknown>): void {
  const schema = SCHEMAS[type];
  const problems: string[] = [];
  for (const key of schema.required) if (config[key] === undefined) problems.push(`${key} is required`);
  for (const [key, value] of Object.entries(config)) {
    const rule = schema.rules[key];
    const problem = rule
      ? rule(value, key)
      : `${key} is not a ${type} setting (allowed: ${Object.keys(schema.rules).join(', ')})`;
    if (problem) problems.push(problem);
  }
  if (
    type === 'token' &&
    Number.isInteger(config.default_lease_ttl) &&
    Number.isInteger(config.max_lease_ttl) &&
    (config.default_lease_ttl as number) > (config.max_lease_ttl as number)
  ) {
    problems.push('default_lease_ttl must not exceed max_lease_ttl');
  }
  if (problems.length > 0)
    throw new VaultError('invalid', `invalid ${type} auth method config: ${problems.join('; ')}`);
}

const MOUNT_SEGMENT = /^[A-Za-z0-9_-]+$/;

/** `jwt`, `jwt/` and `team/jwt` become `jwt/`, `jwt/`, `team/jwt/`. */
export function mountPath(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '' || !trimmed.split('/').every((segment) => MOUNT_SEGMENT.test(segment))) {
    throw new VaultError('invalid', `invalid auth method path ${JSON.stringify(path)}`);
  }
  return `${trimmed}/`;
}

function isAuthMethodType(type: string): type is AuthMethodType {
  return (AUTH_METHOD_TYPES as readonly string[]).includes(type);
}

/**
 * Enabled auth methods. The token method is always enabled at `token/`; enabling `token` there
 * again tunes it (its default and maximum TTL apply to every token created after).
 */
export class AuthMethodStore {
  constructor(
    private readonly db: Kysely<DataPlaneSchema>,
    private readonly clusterId: string,
    private readonly now: () => Date,
  ) {}

  async list(): Promise<AuthMethod[]> {
    const rows = await this.db
      .selectFrom('vault_auth_methods')
      .selectAll()
      .where('cluster_id', '=', this.clusterId)
      .orderBy('path')
      .execute();
    const methods = rows.map((row) => ({
      type: row.type as AuthMethodType,
      description: row.description,
      path: row.path,
      config: JSON.parse(row.config) as Record<string, unknown>,
    }));
    if (!methods.some((method) => method.path === 'token/')) {
      methods.unshift({
        type: 'token',
        description: 'token based credentials',
        path: 'token/',
        config: { ...DEFAULT_TOKEN_CONFIG },
      });
    }
    return methods;
  }

  async read(path: string): Promise<AuthMethod> {
    const mount = mountPath(path);
    const method = (await this.list()).find((candidate) => candidate.path === mount);
    if (!method) throw new VaultError('not_found', `no auth method is enabled at ${mount}`);
    return method;
  }

  async tokenConfig(): Promise<TokenMethodConfig> {
    return (await this.read('token/')).config as unknown as TokenMethodConfig;
  }

  /** Enables a method at `path`; 409 when another method already uses it. */
  async enable(
    path: string,
    type: string,
    description = '',
    config: Record<string, unknown> = {},
  ): Promise<void> {
    if (!isAuthMethodType(type)) {
      throw new VaultError(
        'invalid',
        `unknown auth method type ${JSON.stringify(type)}; supported: ${AUTH_METHOD_TYPES.join(', ')}`,
      );
    }
    const mount = mountPath(path);
    if ((type === 'token') !== (mount === 'token/')) {
      throw new VaultError('invalid', 'the token auth method lives at token/ and nothing else may');
    }
    validateAuthConfig(type, config);
    const stored = type === 'token' ? { ...(await this.tokenConfig()), ...config } : config;
    validateAuthConfig(type, stored);
    if (type === 'token') {
      await this.db
        .insertInto('vault_auth_methods')
        .values(this.row(mount, type, description || 'token based credentials', stored))
        .onConflict((conflict) =>
          conflict.columns(['cluster_id', 'path']).doUpdateSet({
            config: JSON.stringify(stored),
            description: description || 'token based credentials',
          }),
        )
        .execute();
      return;
    }
    const existing = await this.db
      .selectFrom('vault_auth_methods')
      .select('type')
      .where('cluster_id', '=', this.clusterId)
      .where('path', '=', mount)
      .executeTakeFirst();
    if (existing)
      throw new VaultError('conflict', `an auth method (${existing.type}) is already enabled at ${mount}`);
    await this.db
      .insertInto('vault_auth_methods')
      .values(this.row(mount, type, description, stored))
      .execute();
  }

  async disable(path: string): Promise<void> {
    const mount = mountPath(path);
    if (mount === 'token/') throw new VaultError('invalid', 'the token auth method cannot be disabled');
    const result = await this.db
      .deleteFrom('vault_auth_methods')
      .where('cluster_id', '=', this.clusterId)
      .where('path', '=', mount)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) === 0)
      throw new VaultError('not_found', `no auth method is enabled at ${mount}`);
  }

  private row(path: string, type: AuthMethodType, description: string, config: Record<string, unknown>) {
    return {
      cluster_id: this.clusterId,
      path,
      type,
      description,
      config: JSON.stringify(config),
      created_at: this.now().toISOString(),
    };
  }
}
