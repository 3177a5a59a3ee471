import type { Logger } from 'pino';
import type { KafkaCluster } from '../cluster.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import { ScramFailure } from '../scram.js';
import type { ApiModule, SaslSession } from './api.js';

export interface TokenOutcome {
  errorCode: number;
  message: string | null;
  token: Buffer;
}

/**
 * Feeds one client token to the connection's SCRAM exchange. On success after the final message
 * the connection is authenticated as the user; a failure marks the session failed. Tokens and
 * passwords never reach the log, only the user's name.
 */
export function authenticateToken(
  cluster: KafkaCluster,
  sasl: SaslSession,
  token: Buffer,
  log: Logger,
): TokenOutcome {
  const scram = sasl.scram;
  if (!scram || sasl.principal) {
    sasl.failed = true;
    return {
      errorCode: ErrorCode.ILLEGAL_SASL_STATE,
      message: 'SaslAuthenticate before a SaslHandshake',
      token: Buffer.alloc(0),
    };
  }
  try {
    const answer = scram.respond(token);
    const username = scram.username;
    if (username !== undefined) {
      const principal = cluster.principalOf(username);
      if (!principal) throw new ScramFailure('the user was removed during authentication');
      sasl.principal = principal;
      log.info({ user: username }, 'authenticated');
    }
    return { errorCode: ErrorCode.NONE, message: null, token: answer };
  } catch (error) {
    if (!(error instanceof ScramFailure)) throw error;
    sasl.failed = true;
    log.warn({ reason: error.message }, 'authentication failed');
    return {
      errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED,
      message: error.message,
      token: Buffer.alloc(0),
    };
  }
}

/** SaslAuthenticate: the SCRAM tokens wrapped in Kafka requests (after a v1 SaslHandshake). */
export const saslAuthenticate: ApiModule = {
  key: 36,
  name: 'SaslAuthenticate',
  minVersion: 0,
  maxVersion: 2,
  flexibleVersion: 2,
  beforeAuthentication: true,
  handle(context, reader) {
    const token = reader.bytes();
    reader.tags();
    const outcome = authenticateToken(context.cluster, context.sasl, token, context.log);
    const writer = new Writer(context.flexible)
      .int16(outcome.errorCode)
      .nullableString(outcome.message)
      .bytes(outcome.token);
    if (context.version >= 1) writer.int64(0);
    return writer.tags();
  },
};
