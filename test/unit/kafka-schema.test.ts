import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFlexible, type RequestContext } from '../../workloads/local/kafka/apis/api.js';
import { apiModules } from '../../workloads/local/kafka/apis/registry.js';
import { KafkaCluster, SqliteLogStore } from '../../workloads/local/kafka/index.js';
import { Reader } from '../../workloads/local/kafka/protocol/codec.js';
import {
  apiSchemas,
  decodeMessage,
  encodeMessage,
  firstFlexible,
  versionBounds,
} from '../fixtures/kafka-schema.js';

/**
 * Every served API key at every served version, against Kafka's own schemas: the request is built
 * from the schema, the broker's module answers it, and the answer must read back whole with the
 * schema (no byte missing, none left over). Requests carry content so that nested arrays are
 * written too.
 */
const SAMPLES: Record<number, Record<string, unknown>> = {
  3: { Topics: [{ Name: 'orders' }], AllowAutoTopicCreation: false },
  8: {
    GroupId: 'g',
    GenerationIdOrMemberEpoch: -1,
    Topics: [{ Name: 'orders', Partitions: [{ PartitionIndex: 0, CommittedOffset: 1 }] }],
  },
  9: {
    GroupId: 'g',
    Topics: [{ Name: 'orders', PartitionIndexes: [0, 1] }],
    Groups: [{ GroupId: 'g', Topics: [{ Name: 'orders', PartitionIndexes: [0] }] }],
  },
  11: {
    GroupId: 'g',
    SessionTimeoutMs: 10_000,
    // Each version's join is a new member of the same group, whose earlier members never rejoin:
    // the rebalance waits this long for them before it answers.
    RebalanceTimeoutMs: 100,
    ProtocolType: 'consumer',
    Protocols: [{ Name: 'range', Metadata: Buffer.from([0, 1]) }],
  },
  12: { GroupId: 'g', GenerationId: 1, MemberId: 'm' },
  13: { GroupId: 'g', MemberId: 'm', Members: [{ MemberId: 'm' }] },
  14: { GroupId: 'g', GenerationId: 1, MemberId: 'm', Assignments: [] },
  15: { Groups: ['g', 'other'] },
  17: { Mechanism: 'SCRAM-SHA-512' },
  18: { ClientSoftwareName: 'schema-test', ClientSoftwareVersion: '1.0' },
  19: {
    Topics: [
      {
        Name: 'created',
        NumPartitions: 2,
        ReplicationFactor: 1,
        Configs: [{ Name: 'retention.ms', Value: '60000' }],
      },
    ],
    timeoutMs: 1000,
    validateOnly: true,
  },
  20: { TopicNames: ['absent'], Topics: [{ Name: 'absent' }], TimeoutMs: 1000 },
  29: {
    ResourceTypeFilter: 1,
    ResourceNameFilter: null,
    PatternTypeFilter: 1,
    Operation: 1,
    PermissionType: 1,
  },
  30: {
    Creations: [
      {
        ResourceType: 2,
        ResourceName: 'orders',
        ResourcePatternType: 3,
        Principal: 'User:reader',
        Host: '*',
        Operation: 3,
        PermissionType: 3,
      },
    ],
  },
  31: {
    Filters: [
      {
        ResourceTypeFilter: 2,
        ResourceNameFilter: 'orders',
        PatternTypeFilter: 3,
        Operation: 1,
        PermissionType: 1,
      },
    ],
  },
  32: {
    Resources: [{ ResourceType: 2, ResourceName: 'orders', ConfigurationKeys: null }],
    IncludeSynonyms: true,
    IncludeDocumentation: true,
  },
  21: { Topics: [{ Name: 'orders', Partitions: [{ PartitionIndex: 0, Offset: 0 }] }], TimeoutMs: 1000 },
  23: {
    ReplicaId: -1,
    Topics: [{ Topic: 'orders', Partitions: [{ Partition: 0, CurrentLeaderEpoch: 0, LeaderEpoch: 0 }] }],
  },
  33: {
    Resources: [
      { ResourceType: 2, ResourceName: 'orders', Configs: [{ Name: 'retention.ms', Value: '60000' }] },
    ],
    ValidateOnly: true,
  },
  35: { Topics: null },
  44: {
    Resources: [
      {
        ResourceType: 2,
        ResourceName: 'orders',
        Configs: [{ Name: 'retention.ms', ConfigOperation: 0, Value: '60000' }],
      },
    ],
    ValidateOnly: true,
  },
  47: { GroupId: 'g', Topics: [{ Name: 'orders', Partitions: [{ PartitionIndex: 0 }] }] },
  60: { IncludeClusterAuthorizedOperations: true, EndpointType: 1 },
  61: { Topics: [{ Name: 'orders', PartitionIndexes: [0, 1] }] },
  36: { AuthBytes: Buffer.from('n,,n=nobody,r=abc') },
  37: { Topics: [{ Name: 'orders', Count: 4, Assignments: null }], TimeoutMs: 1000, ValidateOnly: true },
  42: { GroupsNames: ['g'] },
};

let dir: string;
let cluster: KafkaCluster;

function contextFor(version: number, flexible: boolean): RequestContext {
  return {
    cluster,
    version,
    flexible,
    clientId: 'schema-test',
    clientHost: '127.0.0.1',
    brokerId: 0,
    sasl: { mechanism: undefined, scram: undefined, rawTokens: false, principal: undefined, failed: false },
    principal: { name: 'admin', superuser: true, acls: [] },
    log: cluster.logger,
  };
}

describe("the broker's API modules against Kafka's message schemas", () => {
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloudplane-kafka-schema-'));
    cluster = new KafkaCluster({
      clusterId: 'esc_schema',
      store: new SqliteLogStore(path.join(dir, 'log.db')),
      brokers: [{ nodeId: 0, host: '127.0.0.1', port: 1 }],
      limits: { brokers: 1, partitions: null, storageBytes: null, retentionMaxMs: null },
      logger: pino({ level: 'silent' }),
      maintenanceIntervalMs: 0,
    });
    const refusal = cluster.createTopic({
      name: 'orders',
      partitions: 2,
      replicas: 1,
      retentionMs: 3_600_000,
      cleanupPolicy: 'delete',
    });
    expect(refusal).toBeUndefined();
  });

  afterAll(async () => {
    await cluster.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const modules = apiModules();

  it.each(modules.map((module) => [module.name, module] as const))(
    '%s declares versions within Kafka 3.9 and its first flexible version',
    (_name, module) => {
      const schemas = apiSchemas(module.key);
      const [low, high] = versionBounds(schemas.request.validVersions);
      expect(module.minVersion).toBeGreaterThanOrEqual(low);
      expect(module.maxVersion).toBeLessThanOrEqual(high);
      const flexibleFrom = firstFlexible(schemas.request);
      if (
        module.flexibleVersion !== undefined ||
        (flexibleFrom !== undefined && module.maxVersion >= flexibleFrom)
      )
        expect(module.flexibleVersion).toBe(flexibleFrom);
    },
  );

  const cases = modules.flatMap((module) =>
    Array.from({ length: module.maxVersion - module.minVersion + 1 }, (_, i) => {
      const version = module.minVersion + i;
      return [`${module.name} v${version}`, module, version] as const;
    }),
  );

  it.each(cases)('answers %s in the layout of the schema', async (_name, module, version) => {
    const schemas = apiSchemas(module.key);
    const flexible = isFlexible(module, version);
    const body = encodeMessage(schemas.request, version, SAMPLES[module.key] ?? {});
    const reader = new Reader(body, 0, flexible);
    const answer = await module.handle(contextFor(version, flexible), reader);
    expect(reader.remaining).toBe(0);
    if (answer === undefined) return;
    expect(answer.flexible).toBe(flexible);
    decodeMessage(schemas.response, version, answer.toBuffer());
  });
});
