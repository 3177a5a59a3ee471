/**
 * Checks a cluster user's password against the SCRAM-SHA-512 credential the brokers keep, as a
 * SCRAM client proves it: SaltedPassword = PBKDF2-HMAC-SHA512(password, salt, iterations),
 * ClientKey = HMAC(SaltedPassword, "Client Key"), and SHA-512(ClientKey) must be the StoredKey.
 * The streaming family's face exports no such check, so the registry reads the credential row.
 */
import { createHash, createHmac, pbkdf2, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { DataPlane } from '../data-plane/data-plane.js';

const pbkdf2Async = promisify(pbkdf2);

/** Which user: the cluster's namespace and object name, and the SASL user name. */
export interface ClusterUser {
  namespace: string;
  cluster: string;
  username: string;
}

/** Whether `password` is the user's; false for a user without a credential. */
export async function clusterUserPasswordMatches(
  database: DataPlane,
  user: ClusterUser,
  password: string,
): Promise<boolean> {
  const row = await database.kysely
    .selectFrom('streaming_user_credentials')
    .select(['salt', 'iterations', 'stored_key'])
    .where('namespace', '=', user.namespace)
    .where('cluster', '=', user.cluster)
    .where('username', '=', user.username)
    .executeTakeFirst();
  if (!row) return false;
  const salted = await pbkdf2Async(
    password.normalize('NFKC'),
    Buffer.from(row.salt, 'base64'),
    row.iterations,
    64,
    'sha512',
  );
  const clientKey = createHmac('sha512', salted).update('Client Key').digest();
  const storedKey = createHash('sha512').update(clientKey).digest();
  const expected = Buffer.from(row.stored_key, 'base64');
  return expected.length === storedKey.length && timingSafeEqual(expected, storedKey);
}
