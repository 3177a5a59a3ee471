import { isAllowed, type Principal } from '../acl.js';
import type { KafkaCluster } from '../cluster.js';
import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

const GROUP_KEY = 0;
const TRANSACTION_KEY = 1;

interface Coordinator {
  key: string;
  errorCode: number;
  errorMessage: string | null;
  nodeId: number;
  host: string;
  port: number;
}

/** Kafka's checks: DESCRIBE on the group, or on the transactional id; the coordinator is a hash of the key. */
function coordinatorFor(
  cluster: KafkaCluster,
  principal: Principal,
  key: string,
  keyType: number,
): Coordinator {
  const refuse = (errorCode: number, errorMessage: string) => ({
    key,
    errorCode,
    errorMessage,
    nodeId: -1,
    host: '',
    port: -1,
  });
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
  return { key, errorCode: ErrorCode.NONE, errorMessage: null, ...coordinator };
}

/**
 * FindCoordinator for a group (key type 0) or a transactional id (1); v4+ ask for several keys at
 * once. Share groups (type 2, v6) are not served: INVALID_REQUEST.
 */
export const findCoordinator: ApiModule = {
  key: 10,
  name: 'FindCoordinator',
  minVersion: 0,
  maxVersion: 6,
  flexibleVersion: 3,
  handle(context, reader) {
    const { version, cluster, principal } = context;
    const key = version <= 3 ? reader.string() : '';
    const keyType = version >= 1 ? reader.int8() : GROUP_KEY;
    const keys = version >= 4 ? reader.array((r) => r.string()) : [key];
    reader.tags();
    const answers = keys.map((each) => coordinatorFor(cluster, principal, each, keyType));
    const writer = new Writer(context.flexible);
    if (version >= 1) writer.int32(0);
    if (version >= 4) {
      writer.array(answers, (w, answer) =>
        w
          .string(answer.key)
          .int32(answer.nodeId)
          .string(answer.host)
          .int32(answer.port)
          .int16(answer.errorCode)
          .nullableString(answer.errorMessage)
          .tags(),
      );
      return writer.tags();
    }
    const answer = answers[0]!;
    writer.int16(answer.errorCode);
    if (version >= 1) writer.nullableString(answer.errorMessage);
    return writer.int32(answer.nodeId).string(answer.host).int32(answer.port).tags();
  },
};
