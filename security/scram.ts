/**
 * SCRAM-SHA-512 credentials (RFC 5802) as Kafka stores them: the salt, StoredKey and ServerKey,
 * never the password. Derived here, free of any runtime, so the streaming controllers and the
 * Connect worker make a user's credential the same way whichever runtime runs the brokers; the
 * embedded broker checks exchanges against it.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

/** A SCRAM-SHA-512 credential as Kafka stores it: never the password. */
export interface ScramCredential {
  /** base64 */
  salt: string;
  iterations: number;
  /** base64 */
  storedKey: string;
  /** base64 */
  serverKey: string;
}

/** Kafka's minimum iteration count for SCRAM-SHA-512. */
const MIN_ITERATIONS = 4096;

const hmac = (key: Buffer, text: string | Buffer) => createHmac('sha512', key).update(text).digest();
const sha512 = (data: Buffer) => createHash('sha512').update(data).digest();

/** Derives the credential the broker stores from a password; the password is not kept. */
export function scramCredential(password: string, iterations = MIN_ITERATIONS): ScramCredential {
  const salt = randomBytes(32);
  const salted = pbkdf2Sync(
    password.normalize('NFKC'),
    salt,
    Math.max(iterations, MIN_ITERATIONS),
    64,
    'sha512',
  );
  return {
    salt: salt.toString('base64'),
    iterations: Math.max(iterations, MIN_ITERATIONS),
    storedKey: sha512(hmac(salted, 'Client Key')).toString('base64'),
    serverKey: hmac(salted, 'Server Key').toString('base64'),
  };
}
