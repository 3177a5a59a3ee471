import { isAllowed, mayWriteIdempotently } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import { fencedAnswer } from '../transactions.js';
import type { ApiModule } from './api.js';

/**
 * InitProducerId: a new producer id for an idempotent producer (IDEMPOTENT_WRITE on the cluster,
 * or WRITE on some topic); for a transactional id (WRITE on it), its producer id with the next
 * epoch, which fences every older one and aborts a transaction it left open. From v3 the producer
 * may name the id and epoch it had (KIP-360), and is fenced if they are not the current ones.
 */
export const initProducerId: ApiModule = {
  key: 22,
  name: 'InitProducerId',
  minVersion: 0,
  maxVersion: 5,
  flexibleVersion: 2,
  async handle(context, reader) {
    const { cluster, principal, version } = context;
    const transactionalId = reader.nullableString();
    const timeoutMs = reader.int32();
    const expected = version >= 3 ? { producerId: reader.int64(), producerEpoch: reader.int16() } : undefined;
    reader.tags();
    const answer = (errorCode: number, producerId = -1, producerEpoch = -1) =>
      new Writer(context.flexible)
        .int32(0)
        .int16(fencedAnswer(errorCode, version, 4))
        .int64(producerId)
        .int16(producerEpoch)
        .tags();
    if (transactionalId === null && !mayWriteIdempotently(principal)) {
      return answer(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    }
    if (transactionalId !== null && !isAllowed(principal, 'transactional_id', transactionalId, 'write')) {
      return answer(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    }
    // Fencing a transaction left open writes its abort markers first; a failed write is logged there.
    const result = await cluster.transactions
      .initProducerId(transactionalId, timeoutMs, expected && expected.producerId >= 0 ? expected : undefined)
      .catch(() => ({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, producerId: -1, producerEpoch: -1 }));
    return answer(result.errorCode, result.producerId, result.producerEpoch);
  },
};
