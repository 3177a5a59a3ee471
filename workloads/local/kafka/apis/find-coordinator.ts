import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

const GROUP_KEY = 0;
const TRANSACTION_KEY = 1;

/**
 * FindCoordinator for a group (key type 0) or a transactional id (1): the coordinator is a hash of
 * the key. Kafka's checks: DESCRIBE on the group, or on the transactional id.
 */
export const findCoordinator: ApiModule = {
  key: 10,
  name: 'FindCoordinator',
  minVersion: 0,
  maxVersion: 2,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const key = reader.string();
    const keyType = version >= 1 ? reader.int8() : GROUP_KEY;
    const writer = new Writer();
    if (version >= 1) writer.int32(0);
    const refuse = (errorCode: number, message: string) => {
      writer.int16(errorCode);
      if (version >= 1) writer.nullableString(message);
      return writer.int32(-1).string('').int32(-1);
    };
    if (keyType === TRANSACTION_KEY) {
      if (!isAllowed(principal, 'transactional_id', key, 'describe'))
        return refuse(
          ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
          'Transactional Id authorization failed.',
        );
    } else if (keyType !== GROUP_KEY) {
      return refuse(
        ErrorCode.INVALID_REQUEST,
        `Unknown coordinator type ${keyType} in FindCoordinator request`,
      );
    } else if (!isAllowed(principal, 'group', key, 'describe')) {
      return refuse(ErrorCode.GROUP_AUTHORIZATION_FAILED, `Not authorized to access group: ${key}`);
    }
    const coordinator = cluster.coordinatorOf(key);
    writer.int16(ErrorCode.NONE);
    if (version >= 1) writer.nullableString(null);
    return writer.int32(coordinator.nodeId).string(coordinator.host).int32(coordinator.port);
  },
};
