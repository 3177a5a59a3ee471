import { isAllowed } from '../acl.js';
import { ErrorCode } from '../errors.js';
import type { TransactionState } from '../log-store.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';

const STATES: readonly string[] = [
  'Empty',
  'Ongoing',
  'PrepareCommit',
  'PrepareAbort',
  'CompleteCommit',
  'CompleteAbort',
  'Dead',
  'PrepareEpochFence',
] satisfies readonly (TransactionState | 'Dead' | 'PrepareEpochFence')[];

/**
 * ListTransactions: the transactional ids this broker coordinates that the user may DESCRIBE,
 * filtered by state, producer id and (v1) by running longer than a duration; state names Kafka
 * does not know are answered back as unknown.
 */
export const listTransactions: ApiModule = {
  key: 66,
  name: 'ListTransactions',
  minVersion: 0,
  maxVersion: 1,
  flexibleVersion: 0,
  handle(context, reader) {
    const { cluster, principal, version } = context;
    const stateFilters = reader.array((r) => r.string());
    const producerIdFilters = reader.array((r) => r.int64());
    const durationMs = version >= 1 ? reader.int64() : -1;
    reader.tags();
    const now = cluster.clock.now().getTime();
    const listed = cluster.transactions
      .list()
      .filter((record) => cluster.coordinatorOf(record.transactionalId).nodeId === context.brokerId)
      .filter((record) => isAllowed(principal, 'transactional_id', record.transactionalId, 'describe'))
      .filter((record) => stateFilters.length === 0 || stateFilters.includes(record.state))
      .filter((record) => producerIdFilters.length === 0 || producerIdFilters.includes(record.producerId))
      .filter((record) => durationMs < 0 || (record.startedAt >= 0 && now - record.startedAt > durationMs));
    const writer = new Writer(context.flexible).int32(0).int16(ErrorCode.NONE);
    writer.array(
      stateFilters.filter((state) => !STATES.includes(state)),
      (w, state) => w.string(state),
    );
    writer.array(listed, (w, record) =>
      w.string(record.transactionalId).int64(record.producerId).string(record.state).tags(),
    );
    return writer.tags();
  },
};
