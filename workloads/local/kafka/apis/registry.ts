import { ErrorCode } from '../errors.js';
import { Writer } from '../protocol/codec.js';
import type { ApiModule } from './api.js';
import { addOffsetsToTxn } from './add-offsets-to-txn.js';
import { addPartitionsToTxn } from './add-partitions-to-txn.js';
import { alterConfigs } from './alter-configs.js';
import { apiVersions } from './api-versions.js';
import { createAcls } from './create-acls.js';
import { createPartitions } from './create-partitions.js';
import { createTopics } from './create-topics.js';
import { deleteAcls } from './delete-acls.js';
import { deleteGroups } from './delete-groups.js';
import { deleteRecords } from './delete-records.js';
import { deleteTopics } from './delete-topics.js';
import { describeAcls } from './describe-acls.js';
import { describeCluster } from './describe-cluster.js';
import { describeConfigs } from './describe-configs.js';
import { describeGroups } from './describe-groups.js';
import { describeLogDirs } from './describe-log-dirs.js';
import { describeProducers } from './describe-producers.js';
import { describeTransactions } from './describe-transactions.js';
import { endTxn } from './end-txn.js';
import { fetch } from './fetch.js';
import { findCoordinator } from './find-coordinator.js';
import { heartbeat } from './heartbeat.js';
import { incrementalAlterConfigs } from './incremental-alter-configs.js';
import { initProducerId } from './init-producer-id.js';
import { joinGroup } from './join-group.js';
import { leaveGroup } from './leave-group.js';
import { listGroups } from './list-groups.js';
import { listOffsets } from './list-offsets.js';
import { listTransactions } from './list-transactions.js';
import { consumerGroupHeartbeat } from './consumer-group-heartbeat.js';
import { consumerGroupDescribe } from './consumer-group-describe.js';
import { metadata } from './metadata.js';
import { offsetCommit } from './offset-commit.js';
import { offsetDelete } from './offset-delete.js';
import { offsetFetch } from './offset-fetch.js';
import { offsetForLeaderEpoch } from './offset-for-leader-epoch.js';
import { produce } from './produce.js';
import { saslAuthenticate } from './sasl-authenticate.js';
import { saslHandshake } from './sasl-handshake.js';
import { syncGroup } from './sync-group.js';
import { txnOffsetCommit } from './txn-offset-commit.js';

function writeRanges(writer: Writer): void {
  writer.array(MODULES, (w, module) =>
    w.int16(module.key).int16(module.minVersion).int16(module.maxVersion).tags(),
  );
}

/** Every API the broker serves; ApiVersions advertises exactly these ranges. */
const MODULES: readonly ApiModule[] = [
  produce,
  fetch,
  listOffsets,
  metadata,
  offsetCommit,
  offsetFetch,
  findCoordinator,
  joinGroup,
  heartbeat,
  leaveGroup,
  syncGroup,
  describeGroups,
  listGroups,
  saslHandshake,
  apiVersions(writeRanges),
  createTopics,
  deleteTopics,
  deleteRecords,
  initProducerId,
  offsetForLeaderEpoch,
  addPartitionsToTxn,
  addOffsetsToTxn,
  endTxn,
  txnOffsetCommit,
  describeAcls,
  createAcls,
  deleteAcls,
  describeConfigs,
  alterConfigs,
  describeLogDirs,
  saslAuthenticate,
  createPartitions,
  deleteGroups,
  incrementalAlterConfigs,
  offsetDelete,
  describeCluster,
  describeProducers,
  describeTransactions,
  listTransactions,
  consumerGroupHeartbeat,
  consumerGroupDescribe,
];

const BY_KEY = new Map(MODULES.map((module) => [module.key, module]));

/** Every API the broker serves, in key order. */
export function apiModules(): readonly ApiModule[] {
  return MODULES;
}

export function apiModule(key: number): ApiModule | undefined {
  return BY_KEY.get(key);
}

/** The v0-framed ApiVersions answer to a version we do not speak: UNSUPPORTED_VERSION and our ranges. */
export function writeUnsupportedApiVersions(): Writer {
  const writer = new Writer().int16(ErrorCode.UNSUPPORTED_VERSION);
  writeRanges(writer);
  return writer;
}
