import type { DataPlane } from '../../data-plane/data-plane.js';
import { deriveKey } from '../../security/key-derivation.js';
import { open, seal } from '../../security/sealed-box.js';
import { tokenHash } from '../opaque-tokens.js';
import type { OAuthProviderName } from './provider.js';

/** How long a login may take between the redirect to the provider and its callback. */
export const LOGIN_STATE_TTL_MS = 10 * 60 * 1000;

/** What the callback needs to finish a login the start endpoint began. */
export interface PendingLogin {
  provider: OAuthProviderName;
  /** The client's CSRF token, handed back to it unchanged. */
  clientState: string;
  redirectUri: string;
  codeVerifier: string;
  nonce: string | undefined;
}

/**
 * The verifier is sealed under a key derived from the state, which is stored only as a hash: a
 * reader of the table learns neither, so the rows alone cannot complete a stolen code.
 */
function verifierKey(state: string): Buffer {
  return deriveKey(Buffer.from(state, 'utf8'), 'cloudplane oauth code verifier');
}

function boundTo(stateHash: string): string {
  return `oauth_login_states:${stateHash}`;
}

/**
 * Records a login under `state`, the random value sent to the provider, expiring after
 * `LOGIN_STATE_TTL_MS`. Logins that expired before `now` are removed on the way.
 */
export async function savePendingLogin(
  database: DataPlane,
  state: string,
  login: PendingLogin,
  now: Date,
): Promise<void> {
  const stateHash = tokenHash(state);
  await database.kysely
    .deleteFrom('oauth_login_states')
    .where('expires_at', '<', now.toISOString())
    .execute();
  await database.kysely
    .insertInto('oauth_login_states')
    .values({
      state_hash: stateHash,
      provider: login.provider,
      client_state: login.clientState,
      redirect_uri: login.redirectUri,
      sealed_code_verifier: seal(verifierKey(state), login.codeVerifier, boundTo(stateHash)),
      nonce: login.nonce ?? null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + LOGIN_STATE_TTL_MS).toISOString(),
      used_at: null,
    })
    .execute();
}

/**
 * Claims the login recorded under `state` for `provider`, once: undefined when there is none, it
 * expired, it was claimed before, or it was begun with another provider.
 */
export async function claimPendingLogin(
  database: DataPlane,
  provider: OAuthProviderName,
  state: string,
  now: Date,
): Promise<PendingLogin | undefined> {
  const stateHash = tokenHash(state);
  const row = await database.kysely
    .updateTable('oauth_login_states')
    .set({ used_at: now.toISOString() })
    .where('state_hash', '=', stateHash)
    .where('provider', '=', provider)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now.toISOString())
    .returning(['client_state', 'redirect_uri', 'sealed_code_verifier', 'nonce'])
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    provider,
    clientState: row.client_state,
    redirectUri: row.redirect_uri,
    codeVerifier: open(verifierKey(state), row.sealed_code_verifier, boundTo(stateHash)).toString('utf8'),
    nonce: row.nonce ?? undefined,
  };
}
