import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import { fencedAnswer } from '../transactions.js';
import type { ApiModule } from './api.js';

/**
 * EndTxn: commits or aborts the open transaction, answered once its markers and offsets are
 * durable (WRITE on the transactional id).
 */
export const endTxn: ApiModule = {
  key: 26,
  name: 'EndTxn',
  minVersion: 0,
  maxVersion: 4,
  flexibleVersion: 3,
  async handle(context, reader) {
    const { cluster, principal, version } = context;
    const transactionalId = reader.string();
    const producerId = reader.int64();
    const producerEpoch = reader.int16();
    const commit = reader.bool();
    reader.tags();
    const errorCode = isAllowed(principal, 'transactional_id', transactionalId, 'write')
      ? await cluster.transactions
          .endTransaction(transactionalId, producerId, producerEpoch, commit)
          .catch(() => ErrorCode.UNKNOWN_SERVER_ERROR)
      : ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    return new Writer(context.flexible)
      .int32(0)
      .int16(fencedAnswer(errorCode, version, 2))
      .tags();
  },
};
