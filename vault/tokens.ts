import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { preparedQuery } from '../data-plane/prepared-query.js';
import type { DataPlaneSchema, VaultTokensTable } from '../data-plane/schema.js';
import type { TokenMethodConfig } from './auth-methods.js';
import { VaultError } from './vault-error.js';

/** A token as lookups and lists show it: never its value. */
export interface TokenInfo {
  accessor: string;
  type: 'service';
  display_name: string;
  ttl: number;
  issue_time: string;
  expire_time: string;
  last_renewal_time: string;
  policies: string[];
  meta: Record<string, string>;
}

/** The answer to a token creation: the only time `client_token` is shown. */
export interface CreatedToken extends TokenInfo {
  client_token: string;
}

export interface TokenRequest {
  display_name?: string;
  /** Seconds; 0 or absent takes the token method's default; capped at its maximum. */
  ttl?: number;
  policies?: string[];
  meta?: Record<string, string>;
}

/** Vault service tokens look like `hvs.<random>`. */
const TOKEN_PREFIX = 'hvs.';

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const secondsBetween = (from: Date, to: Date): number =>
  Math.max(0, Math.floor((to.getTime() - from.getTime()) / 1000));

/** Policies a token carries: `root` alone, or the requested ones with `default`, sorted. */
function normalisePolicies(policies: readonly string[] | undefined): string[] {
  const requested = new Set(policies ?? []);
  if (requested.has('root')) return ['root'];
  requested.add('default');
  return [...requested].sort();
}

// Every request with a vault token looks it up: compiled once rather than built per call.
const tokenByHash = preparedQuery((db, clusterId: string, tokenHash: string) =>
  db
    .selectFrom('vault_tokens')
    .selectAll()
    .where('cluster_id', '=', clusterId)
    .where('token_hash', '=', tokenHash),
);

/** Service tokens, stored only as their SHA-256; an expired or revoked token is refused everywhere. */
export class TokenStore {
  constructor(
    private readonly db: Kysely<DataPlaneSchema>,
    private readonly clusterId: string,
    private readonly now: () => Date,
  ) {}

  async create(request: TokenRequest, config: TokenMethodConfig): Promise<CreatedToken> {
    const now = this.now();
    const requestedTtl = request.ttl ?? 0;
    if (!Number.isInteger(requestedTtl) || requestedTtl < 0) {
      throw new VaultError('invalid', 'ttl must be a whole number of seconds, 0 or more');
    }
    const ttl = Math.min(requestedTtl === 0 ? config.default_lease_ttl : requestedTtl, config.max_lease_ttl);
    const clientToken = `${TOKEN_PREFIX}${randomBytes(24).toString('base64url')}`;
    const accessor = randomBytes(18).toString('base64url');
    const row: VaultTokensTable = {
      accessor,
      cluster_id: this.clusterId,
      token_hash: hashToken(clientToken),
      display_name: request.display_name?.trim() ? `token-${request.display_name.trim()}` : 'token',
      policies: JSON.stringify(normalisePolicies(request.policies)),
      meta: JSON.stringify(request.meta ?? {}),
      ttl,
      issue_time: now.toISOString(),
      expire_time: new Date(now.getTime() + ttl * 1000).toISOString(),
      max_expire_time: new Date(now.getTime() + config.max_lease_ttl * 1000).toISOString(),
      last_renewal_time: now.toISOString(),
      revoked_at: null,
    };
    await this.db.insertInto('vault_tokens').values(row).execute();
    return { client_token: clientToken, ...this.info(row) };
  }

  /** The live token with this value; 401 when unknown, expired or revoked. */
  async lookup(clientToken: string): Promise<TokenInfo> {
    const [row] = await tokenByHash(this.db, this.clusterId, hashToken(clientToken));
    if (!row || !this.isLive(row))
      throw new VaultError('unauthorized', 'invalid, expired or revoked vault token');
    return this.info(row);
  }

  async lookupAccessor(accessor: string): Promise<TokenInfo> {
    const row = await this.liveByAccessor(accessor);
    return this.info(row);
  }

  /** Live tokens, oldest first. */
  async list(): Promise<TokenInfo[]> {
    const rows = await this.db
      .selectFrom('vault_tokens')
      .selectAll()
      .where('cluster_id', '=', this.clusterId)
      .where('revoked_at', 'is', null)
      .where('expire_time', '>', this.now().toISOString())
      .orderBy('issue_time')
      .orderBy('accessor')
      .execute();
    return rows.map((row) => this.info(row));
  }

  /** Revokes by accessor; 404 when no live token has it. */
  async revokeAccessor(accessor: string): Promise<void> {
    await this.liveByAccessor(accessor);
    await this.db
      .updateTable('vault_tokens')
      .set({ revoked_at: this.now().toISOString() })
      .where('cluster_id', '=', this.clusterId)
      .where('accessor', '=', accessor)
      .execute();
  }

  async revoke(clientToken: string): Promise<void> {
    const info = await this.lookup(clientToken);
    await this.revokeAccessor(info.accessor);
  }

  /**
   * Extends a live token by `increment` seconds (its own ttl when absent) from now, never past
   * the maximum lifetime it was issued with.
   */
  async renew(clientToken: string, increment?: number): Promise<TokenInfo> {
    const { accessor } = await this.lookup(clientToken);
    const row = await this.liveByAccessor(accessor);
    const now = this.now();
    const wanted = increment && increment > 0 ? increment : row.ttl;
    const expire = new Date(Math.min(now.getTime() + wanted * 1000, Date.parse(row.max_expire_time)));
    await this.db
      .updateTable('vault_tokens')
      .set({ expire_time: expire.toISOString(), last_renewal_time: now.toISOString() })
      .where('cluster_id', '=', this.clusterId)
      .where('accessor', '=', accessor)
      .execute();
    return this.info({ ...row, expire_time: expire.toISOString(), last_renewal_time: now.toISOString() });
  }

  private async liveByAccessor(accessor: string): Promise<VaultTokensTable> {
    const row = await this.db
      .selectFrom('vault_tokens')
      .selectAll()
      .where('cluster_id', '=', this.clusterId)
      .where('accessor', '=', accessor)
      .executeTakeFirst();
    if (!row || !this.isLive(row))
      throw new VaultError('not_found', `no live token has accessor ${accessor}`);
    return row;
  }

  private isLive(row: VaultTokensTable): boolean {
    return row.revoked_at === null && row.expire_time > this.now().toISOString();
  }

  private info(row: VaultTokensTable): TokenInfo {
    return {
      accessor: row.accessor,
      type: 'service',
      display_name: row.display_name,
      ttl: secondsBetween(this.now(), new Date(row.expire_time)),
      issue_time: row.issue_time,
      expire_time: row.expire_time,
      last_renewal_time: row.last_renewal_time,
      policies: JSON.parse(row.policies) as string[],
      meta: JSON.parse(row.meta) as Record<string, string>,
    };
  }
}
