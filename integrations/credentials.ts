/**
 * The sealed credentials of integrations. Each integration has one row holding a JSON object of
 * string values (token, api_key, webhook_url, webhook_secret, signing_secret, …), sealed with
 * AES-256-GCM under a key derived from the platform key and bound to the integration id, so a
 * row copied onto another integration no longer opens.
 */
import { randomUUID } from 'node:crypto';
import { isUniqueViolation } from '../data-plane/unique-violation.js';
import type { DataPlane } from '../data-plane/data-plane.js';
import { deriveKey } from '../security/key-derivation.js';
import { open, seal } from '../security/sealed-box.js';

/** The secret values of one integration; which keys exist depends on its type. */
export type IntegrationCredentials = Record<string, string>;

const KEY_PURPOSE = 'cloudplane integration credentials';

function credentialsKey(platformKey: Buffer): Buffer {
  return deriveKey(platformKey, KEY_PURPOSE);
}

function associatedData(integrationId: string): string {
  return `integration-credentials:${integrationId}`;
}

/** Another integration of the same organization already uses this provider account. */
export class DuplicateAccountError extends Error {
  constructor(readonly accountKey: string) {
    super(`an integration for provider account ${accountKey} already exists`);
    this.name = 'DuplicateAccountError';
  }
}

export interface NewCredentials {
  integrationId: string;
  namespace: string;
  type: string;
  /** The provider account; null when not known yet (a generic create before verification). */
  accountKey: string | null;
  credentials: IntegrationCredentials;
  now: Date;
  /** The provider accepted the credentials just now, for the object's first generation. */
  verified?: boolean;
}

/**
 * Stores an integration's credentials and returns the row id the CR refers to. Throws
 * `DuplicateAccountError` when the organization already has an integration of that type for the
 * same account.
 */
export async function storeCredentials(
  db: DataPlane,
  platformKey: Buffer,
  entry: NewCredentials,
): Promise<string> {
  const id = `cred-${randomUUID()}`;
  const at = entry.now.toISOString();
  try {
    await db.kysely
      .insertInto('integration_credentials')
      .values({
        id,
        integration_id: entry.integrationId,
        namespace: entry.namespace,
        type: entry.type,
        account_key: entry.accountKey,
        sealed_credentials: seal(
          credentialsKey(platformKey),
          JSON.stringify(entry.credentials),
          associatedData(entry.integrationId),
        ),
        created_at: at,
        updated_at: at,
        verified_generation: entry.verified ? 1 : null,
        verified_at: entry.verified ? at : null,
      })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error) && entry.accountKey !== null)
      throw new DuplicateAccountError(entry.accountKey);
    throw error;
  }
  return id;
}

/** The integration's credentials, or undefined when it has none stored. */
export async function readCredentials(
  db: DataPlane,
  platformKey: Buffer,
  integrationId: string,
): Promise<IntegrationCredentials | undefined> {
  const row = await db.kysely
    .selectFrom('integration_credentials')
    .select('sealed_credentials')
    .where('integration_id', '=', integrationId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const plaintext = open(credentialsKey(platformKey), row.sealed_credentials, associatedData(integrationId));
  return JSON.parse(plaintext.toString('utf8')) as IntegrationCredentials;
}

/**
 * Merges `changes` into the stored credentials (for example a signing secret generated on first
 * use) and, when given, records the provider account. Throws `DuplicateAccountError` like
 * `storeCredentials`; returns false when the integration has no credentials row.
 */
export async function updateCredentials(
  db: DataPlane,
  platformKey: Buffer,
  integrationId: string,
  update: { changes?: IntegrationCredentials; accountKey?: string; now: Date },
): Promise<boolean> {
  const current = await readCredentials(db, platformKey, integrationId);
  if (current === undefined) return false;
  const merged = { ...current, ...update.changes };
  try {
    await db.kysely
      .updateTable('integration_credentials')
      .set({
        sealed_credentials: seal(
          credentialsKey(platformKey),
          JSON.stringify(merged),
          associatedData(integrationId),
        ),
        updated_at: update.now.toISOString(),
        ...(update.accountKey === undefined ? {} : { account_key: update.accountKey }),
      })
      .where('integration_id', '=', integrationId)
      .execute();
  } catch (error) {
    if (isUniqueViolation(error) && update.accountKey !== undefined)
      throw new DuplicateAccountError(update.accountKey);
    throw error;
  }
  return true;
}

/** Removes an integration's credentials; deleting what is not there is not an error. */
export async function deleteCredentials(db: DataPlane, integrationId: string): Promise<void> {
  await db.kysely.deleteFrom('integration_credentials').where('integration_id', '=', integrationId).execute();
}
