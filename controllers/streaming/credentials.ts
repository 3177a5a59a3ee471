/**
 * The credentials of event-streaming users. A password is never kept in clear: the data plane
 * holds the SCRAM-SHA-512 credential the brokers check (derived as the brokers derive it) and
 * the password sealed under a key derived from the platform key, bound to its row, for an
 * audited reveal.
 */
import { randomBytes } from 'node:crypto';
import type { DataPlane } from '../../data-plane/data-plane.js';
import { isUniqueViolation } from '../../data-plane/unique-violation.js';
import { deriveKey } from '../../security/key-derivation.js';
import { open, seal } from '../../security/sealed-box.js';
import { scramCredential, type ScramCredential } from '../../security/scram.js';

const KEY_PURPOSE = 'cloudplane streaming user passwords';

/** A new password: 32 URL-safe characters, which every Kafka client takes unquoted. */
export function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

/** Which user a row is: the cluster's object name and the SASL user name, in a namespace. */
export interface StreamingUserKey {
  namespace: string;
  cluster: string;
  username: string;
}

function associatedData(key: StreamingUserKey): string {
  return `streaming-user:${key.namespace}/${key.cluster}/${key.username}`;
}

/** The user already has a credential row (a user of that name exists, or is still being removed). */
export class DuplicateStreamingUserError extends Error {
  constructor(readonly username: string) {
    super(`a user named ${username} exists`);
    this.name = 'DuplicateStreamingUserError';
  }
}

/**
 * Keeps the user's credential and sealed password. Throws `DuplicateStreamingUserError` when the
 * user has a row already.
 */
export async function storeUserPassword(
  database: DataPlane,
  platformKey: Buffer,
  key: StreamingUserKey,
  password: string,
  now: Date,
): Promise<ScramCredential> {
  const credential = scramCredential(password);
  try {
    await database.kysely
      .insertInto('streaming_user_credentials')
      .values({
        namespace: key.namespace,
        cluster: key.cluster,
        username: key.username,
        salt: credential.salt,
        iterations: credential.iterations,
        stored_key: credential.storedKey,
        server_key: credential.serverKey,
        sealed_password: seal(deriveKey(platformKey, KEY_PURPOSE), password, associatedData(key)),
        created_at: now.toISOString(),
      })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateStreamingUserError(key.username);
    throw error;
  }
  return credential;
}

/** The user's SCRAM credential, or undefined when it has none yet. */
export async function readUserCredential(
  database: DataPlane,
  key: StreamingUserKey,
): Promise<ScramCredential | undefined> {
  const row = await userRow(database, key)
    .select(['salt', 'iterations', 'stored_key', 'server_key'])
    .executeTakeFirst();
  return row
    ? { salt: row.salt, iterations: row.iterations, storedKey: row.stored_key, serverKey: row.server_key }
    : undefined;
}

/** The user's password, opened from its sealed copy; undefined when the user has no row. */
export async function revealUserPassword(
  database: DataPlane,
  platformKey: Buffer,
  key: StreamingUserKey,
): Promise<string | undefined> {
  const row = await userRow(database, key).select('sealed_password').executeTakeFirst();
  if (!row) return undefined;
  return open(deriveKey(platformKey, KEY_PURPOSE), row.sealed_password, associatedData(key)).toString('utf8');
}

export async function removeUserCredential(database: DataPlane, key: StreamingUserKey): Promise<void> {
  await database.kysely
    .deleteFrom('streaming_user_credentials')
    .where('namespace', '=', key.namespace)
    .where('cluster', '=', key.cluster)
    .where('username', '=', key.username)
    .execute();
}

/** Every user row of a cluster, once the cluster is gone. */
export async function removeClusterCredentials(
  database: DataPlane,
  namespace: string,
  cluster: string,
): Promise<void> {
  await database.kysely
    .deleteFrom('streaming_user_credentials')
    .where('namespace', '=', namespace)
    .where('cluster', '=', cluster)
    .execute();
}

function userRow(database: DataPlane, key: StreamingUserKey) {
  return database.kysely
    .selectFrom('streaming_user_credentials')
    .where('namespace', '=', key.namespace)
    .where('cluster', '=', key.cluster)
    .where('username', '=', key.username);
}
