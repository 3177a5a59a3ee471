import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

const GROUP_KEY = 0;

/** FindCoordinator: groups only (no transactions); the coordinator is a hash of the group id. */
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
    if (keyType !== GROUP_KEY)
      return refuse(ErrorCode.COORDINATOR_NOT_AVAILABLE, 'transactions are not supported');
    if (!isAllowed(principal, 'group', key, 'describe')) {
      return refuse(ErrorCode.GROUP_AUTHORIZATION_FAILED, `Not authorized to access group: ${key}`);
    }
    const coordinator = cluster.coordinatorOf(key);
    writer.int16(ErrorCode.NONE);
    if (version >= 1) writer.nullableString(null);
    return writer.int32(coordinator.nodeId).string(coordinator.host).int32(coordinator.port);
  },
};
