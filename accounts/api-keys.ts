import { createHash, timingSafeEqual } from 'node:crypto';
import { invalidInput, notFound, refused, unauthenticated } from './account-error.js';
import type { Principal } from './principal.js';
import type { OrganizationRole } from '../data-plane/schema.js';
import type { AccountsDeps } from './deps.js';
import { newId, randomBase32 } from './ids.js';
import { intersectScopes, isScope, ROLE_SCOPES, SCOPES, scopesBeyond } from './roles.js';
import { isUniqueViolation } from '../data-plane/unique-violation.js';

/** `cpk_<8-character prefix>_<32-character secret>`: the prefix finds the key, the secret proves it. */
const API_KEY_FORMAT = /^cpk_([a-z2-7]{8})_([a-z2-7]{32})$/;
const PREFIX_ATTEMPTS = 5;
const LAST_USED_RESOLUTION_MS = 60_000;

/** An API key as listed; the key itself is shown only when created. */
export interface ApiKeyView {
  id: string;
  name: string;
  /** The key's visible beginning, `cpk_<prefix>`, to recognise it by. */
  prefix: string;
  scopes: string[];
  organization_id: string;
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface CreatedApiKey extends ApiKeyView {
  key: string;
}

export interface ApiKeyRequest {
  userId: string;
  organizationId: string;
  role: OrganizationRole;
  name: string;
  scopes: string[];
  expiresAt: string | undefined;
}

function secretHash(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

function invalidApiKey(message = 'invalid API key') {
  return unauthenticated(message, { code: 'invalid_api_key' });
}

function checkScopes(request: ApiKeyRequest): string[] {
  const unknown = request.scopes.filter((scope) => !isScope(scope));
  if (unknown.length > 0) {
    throw invalidInput(
      `unknown scope ${unknown.map((scope) => JSON.stringify(scope)).join(', ')}; scopes are ${SCOPES.join(', ')}`,
      {
        details: {
          fields: [
            { in: 'body', field: 'scopes', rule: 'enum', message: `unknown scope ${unknown.join(', ')}` },
          ],
        },
      },
    );
  }
  const beyond = scopesBeyond(ROLE_SCOPES[request.role], request.scopes);
  if (beyond.length > 0) {
    throw refused(`your role ${request.role} in this organization does not grant ${beyond.join(', ')}`, {
      details: { missing_scopes: beyond },
    });
  }
  return [...new Set(request.scopes)];
}

/**
 * Creates an API key of the user in the organization current at creation. Its scopes must be
 * within the user's role there (403 otherwise); an unknown scope or a past expiry is a 400.
 */
export async function createApiKey(deps: AccountsDeps, request: ApiKeyRequest): Promise<CreatedApiKey> {
  const scopes = checkScopes(request);
  const now = deps.now();
  if (request.expiresAt !== undefined && Date.parse(request.expiresAt) <= now.getTime()) {
    throw invalidInput('expires_at must be in the future', {
      details: {
        fields: [
          { in: 'body', field: 'expires_at', rule: 'future', message: 'expires_at must be in the future' },
        ],
      },
    });
  }
  const secret = randomBase32(32);
  for (let attempt = 1; ; attempt++) {
    const row = {
      id: newId('key'),
      prefix: randomBase32(8),
      secret_hash: secretHash(secret).toString('hex'),
      user_id: request.userId,
      organization_id: request.organizationId,
      name: request.name,
      scopes: JSON.stringify(scopes),
      expires_at: request.expiresAt === undefined ? null : new Date(request.expiresAt).toISOString(),
      created_at: now.toISOString(),
      last_used_at: null,
    };
    try {
      await deps.database.kysely.insertInto('api_keys').values(row).execute();
    } catch (error) {
      // 40 random bits rarely collide; when they do, draw another prefix.
      if (isUniqueViolation(error) && attempt < PREFIX_ATTEMPTS) continue;
      throw error;
    }
    deps.logger.info({ userId: request.userId, apiKeyId: row.id, scopes }, 'API key created');
    return {
      id: row.id,
      name: row.name,
      key: `cpk_${row.prefix}_${secret}`,
      prefix: `cpk_${row.prefix}`,
      scopes,
      organization_id: row.organization_id,
      expires_at: row.expires_at,
      created_at: row.created_at,
      last_used_at: null,
    };
  }
}

export async function listApiKeys(deps: AccountsDeps, userId: string): Promise<ApiKeyView[]> {
  const rows = await deps.database.kysely
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'scopes', 'organization_id', 'expires_at', 'created_at', 'last_used_at'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    ...row,
    prefix: `cpk_${row.prefix}`,
    scopes: JSON.parse(row.scopes) as string[],
  }));
}

/** Deletes one of the user's keys; 404 when there is no such key of theirs. */
export async function deleteApiKey(deps: AccountsDeps, userId: string, id: string): Promise<void> {
  const result = await deps.database.kysely
    .deleteFrom('api_keys')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound(`API key ${id} not found`);
  deps.logger.info({ userId, apiKeyId: id }, 'API key deleted');
}

/** An API key found valid: its principal and what keeping it fresh needs. */
export interface ResolvedApiKey {
  principal: Principal;
  id: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

/**
 * The principal of an API key: its organization, and its scopes narrowed to what the owner's role
 * grants today (a demoted owner's keys lose what the role lost). Throws 401 for a malformed,
 * unknown or expired key, or one whose owner left the organization.
 */
export async function resolveApiKey(deps: AccountsDeps, key: string): Promise<ResolvedApiKey> {
  const match = API_KEY_FORMAT.exec(key);
  if (!match?.[1] || !match[2]) throw invalidApiKey();
  const row = await deps.database.kysely
    .selectFrom('api_keys as k')
    .leftJoin('organization_members as m', (join) =>
      join.onRef('m.organization_id', '=', 'k.organization_id').onRef('m.user_id', '=', 'k.user_id'),
    )
    .select([
      'k.id',
      'k.secret_hash',
      'k.scopes',
      'k.organization_id',
      'k.user_id',
      'k.expires_at',
      'k.last_used_at',
      'm.role',
    ])
    .where('k.prefix', '=', match[1])
    .executeTakeFirst();
  if (!row || !timingSafeEqual(Buffer.from(row.secret_hash, 'hex'), secretHash(match[2])))
    throw invalidApiKey();
  if (row.expires_at !== null && row.expires_at <= deps.now().toISOString())
    throw invalidApiKey('the API key has expired');
  if (!row.role) throw invalidApiKey('the API key owner is no longer a member of its organization');
  return {
    principal: {
      kind: 'api_key',
      id: row.id,
      userId: row.user_id,
      organizationId: row.organization_id,
      scopes: intersectScopes(JSON.parse(row.scopes) as string[], ROLE_SCOPES[row.role]),
      rateLimitKey: `key:${row.id}`,
    },
    id: row.id,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
  };
}

/** Records use, at most once per `LAST_USED_RESOLUTION_MS` per key; `key.lastUsedAt` follows. */
export async function touchApiKey(deps: AccountsDeps, key: ResolvedApiKey): Promise<void> {
  const now = deps.now();
  if (key.lastUsedAt !== null && now.getTime() - Date.parse(key.lastUsedAt) < LAST_USED_RESOLUTION_MS) return;
  key.lastUsedAt = now.toISOString();
  await deps.database.kysely
    .updateTable('api_keys')
    .set({ last_used_at: key.lastUsedAt })
    .where('id', '=', key.id)
    .execute();
}
