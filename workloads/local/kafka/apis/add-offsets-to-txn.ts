import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import { fencedAnswer } from '../transactions.js';
import type { ApiModule } from './api.js';

/** AddOffsetsToTxn: the group's offsets become part of the transaction (WRITE on it, READ on the group). */
export const addOffsetsToTxn: ApiModule = {
  key: 25,
  name: 'AddOffsetsToTxn',
  minVersion: 0,
  maxVersion: 4,
  flexibleVersion: 3,
  handle(context, reader) {
    const { cluster, principal, version } = context;
    const transactionalId = reader.string();
    const producerId = reader.int64();
    const producerEpoch = reader.int16();
    const groupId = reader.string();
    reader.tags();
    const errorCode = !isAllowed(principal, 'transactional_id', transactionalId, 'write')
      ? ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
      : !isAllowed(principal, 'group', groupId, 'read')
        ? ErrorCode.GROUP_AUTHORIZATION_FAILED
        : cluster.transactions.addOffsets(transactionalId, producerId, producerEpoch, groupId);
    return new Writer(context.flexible)
      .int32(0)
      .int16(fencedAnswer(errorCode, version, 2))
      .tags();
  },
};
