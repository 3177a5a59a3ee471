import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamingUserSpec } from '../../workloads/runtime.js';
import {
  bindingProblem,
  bindingsOf,
  matchesFilter,
  withBinding,
  withoutMatching,
  type AclBinding,
  type AclFilter,
} from '../../workloads/local/kafka/acl-bindings.js';
import type { RequestContext } from '../../workloads/local/kafka/apis/api.js';
import { apiModule } from '../../workloads/local/kafka/apis/registry.js';
import { KafkaCluster, SqliteLogStore } from '../../workloads/local/kafka/index.js';
import { scramCredential } from '../../security/scram.js';
import { Reader } from '../../workloads/local/kafka/protocol/codec.js';
import { apiSchemas, decodeMessage, encodeMessage } from '../fixtures/kafka-schema.js';

const TOPIC = 2;
const GROUP = 3;
const LITERAL = 3;
const PREFIXED = 4;
const READ = 3;
const WRITE = 4;
const ALLOW = 3;
const DENY = 2;
const ANY = 1;
const MATCH = 2;

const user: StreamingUserSpec = {
  name: 'app',
  credential: scramCredential('app-secret'),
  acls: [
    {
      resourceType: 'topic',
      patternType: 'prefixed',
      name: 'orders',
      operations: ['read', 'write'],
      permission: 'allow',
    },
    {
      resourceType: 'group',
      patternType: 'literal',
      name: 'billing',
      operations: ['read'],
      permission: 'deny',
    },
  ],
};

const binding = (fields: Partial<AclBinding>): AclBinding => ({
  resourceType: TOPIC,
  resourceName: 'orders',
  patternType: PREFIXED,
  principal: 'User:app',
  host: '*',
  operation: READ,
  permission: ALLOW,
  ...fields,
});

const anything: AclFilter = {
  resourceType: ANY,
  resourceName: null,
  patternType: ANY,
  principal: null,
  host: null,
  operation: ANY,
  permission: ANY,
};

describe("the users' ACLs as Kafka's bindings", () => {
  it('makes one binding per operation', () => {
    expect(bindingsOf([user])).toEqual([
      binding({}),
      binding({ operation: WRITE }),
      binding({ resourceType: GROUP, resourceName: 'billing', patternType: LITERAL, permission: DENY }),
    ]);
  });

  it.each([
    ['anything', {}, 3],
    ['topics only', { resourceType: TOPIC }, 2],
    ['the literal name of a prefixed ACL', { resourceName: 'orders-eu', patternType: LITERAL }, 0],
    ['MATCH: a name under the prefix', { resourceName: 'orders-eu', patternType: MATCH }, 2],
    ['MATCH: a name outside the prefix', { resourceName: 'payments', patternType: MATCH }, 0],
    ['denials', { permission: DENY }, 1],
    ['another principal', { principal: 'User:other' }, 0],
  ])('filters %s', (_case, fields, count) => {
    const filter = { ...anything, ...fields };
    expect(bindingsOf([user]).filter((entry) => matchesFilter(entry, filter))).toHaveLength(count);
  });

  it.each([
    ['a cluster ACL other than IDEMPOTENT_WRITE', { resourceType: 4 }, /IDEMPOTENT_WRITE/],
    ['IDEMPOTENT_WRITE on a topic', { operation: 12 }, /IDEMPOTENT_WRITE/],
    [
      'a cluster resource of another name',
      { resourceType: 4, operation: 12, resourceName: 'orders', patternType: LITERAL },
      /kafka-cluster/,
    ],
    ['a delegation token ACL', { resourceType: 6 }, /transactional id and cluster/],
    ['a MATCH pattern', { patternType: MATCH }, /LITERAL or PREFIXED/],
    ['an operation the platform does not keep', { operation: 10 }, /operation/],
    ['one host', { host: '10.0.0.1' }, /host/],
    ['a group principal', { principal: 'Group:x' }, /User:/],
  ])('refuses %s', (_case, fields, message) => {
    expect(bindingProblem(binding(fields))).toMatch(message);
  });

  it('keeps transactional id ACLs and IDEMPOTENT_WRITE on kafka-cluster', () => {
    expect(bindingProblem(binding({ resourceType: 5, resourceName: 'billing-' }))).toBeUndefined();
    expect(
      bindingProblem(
        binding({ resourceType: 4, operation: 12, resourceName: 'kafka-cluster', patternType: LITERAL }),
      ),
    ).toBeUndefined();
  });

  it('keeps ALTER and DESCRIBE on kafka-cluster, the rights to manage ACLs', () => {
    const onCluster = { resourceType: 4, resourceName: 'kafka-cluster', patternType: LITERAL };
    expect(bindingProblem(binding({ ...onCluster, operation: 7 }))).toBeUndefined();
    expect(bindingProblem(binding({ ...onCluster, operation: 8 }))).toBeUndefined();
    expect(bindingProblem(binding({ ...onCluster, operation: WRITE }))).toMatch(/ALTER, DESCRIBE/);
  });

  it('adds an operation to the ACL of the same resource, or a new ACL', () => {
    expect(withBinding(user, binding({ operation: 8 })).acls[0]!.operations).toEqual([
      'read',
      'write',
      'describe',
    ]);
    expect(withBinding(user, binding({ resourceName: 'payments', patternType: LITERAL })).acls).toHaveLength(
      3,
    );
    expect(withBinding(user, binding({}))).toBe(user);
  });

  it('removes the matching operations and the ACLs left empty', () => {
    expect(withoutMatching(user, { ...anything, operation: WRITE }).acls[0]!.operations).toEqual(['read']);
    expect(withoutMatching(user, { ...anything, resourceType: GROUP }).acls).toHaveLength(1);
  });
});

describe('DescribeAcls, CreateAcls and DeleteAcls', () => {
  let dir: string;
  let cluster: KafkaCluster;
  let changes = 0;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloudplane-kafka-acls-'));
    cluster = new KafkaCluster({
      clusterId: 'esc_acls',
      store: new SqliteLogStore(path.join(dir, 'log.db')),
      brokers: [{ nodeId: 0, host: '127.0.0.1', port: 1 }],
      limits: { brokers: 1, partitions: null, storageBytes: null, retentionMaxMs: null },
      logger: pino({ level: 'silent' }),
      maintenanceIntervalMs: 0,
    });
    cluster.saveUser(user);
    cluster.onAclsChanged(() => changes++);
  });

  afterAll(async () => {
    await cluster.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function call(
    key: number,
    version: number,
    request: Record<string, unknown>,
    superuser = true,
    acls = user.acls,
  ) {
    const schemas = apiSchemas(key);
    const context: RequestContext = {
      cluster,
      version,
      flexible: version >= 2,
      clientId: 'acl-test',
      clientHost: '127.0.0.1',
      brokerId: 0,
      sasl: { mechanism: undefined, scram: undefined, rawTokens: false, principal: undefined, failed: false },
      principal: superuser
        ? { name: 'admin', superuser: true, acls: [] }
        : { name: 'app', superuser: false, acls },
      log: cluster.logger,
    };
    const body = encodeMessage(schemas.request, version, request);
    const answer = await apiModule(key)!.handle(context, new Reader(body, 0, version >= 2));
    return decodeMessage(schemas.response, version, answer!.toBuffer());
  }

  const describeAll = {
    ResourceTypeFilter: ANY,
    ResourceNameFilter: null,
    PatternTypeFilter: ANY,
    PrincipalFilter: null,
    HostFilter: null,
    Operation: ANY,
    PermissionType: ANY,
  };

  it("describes the users' ACLs grouped by resource", async () => {
    const answer = await call(29, 3, describeAll);
    expect(answer.ErrorCode).toBe(0);
    expect(answer.Resources).toEqual([
      expect.objectContaining({
        ResourceType: TOPIC,
        ResourceName: 'orders',
        PatternType: PREFIXED,
        Acls: [
          expect.objectContaining({ Principal: 'User:app', Operation: READ }),
          expect.objectContaining({ Principal: 'User:app', Operation: WRITE }),
        ],
      }),
      expect.objectContaining({ ResourceType: GROUP, ResourceName: 'billing' }),
    ]);
  });

  it("creates an ACL into the user's own, and tells the platform", async () => {
    const before = changes;
    const answer = await call(30, 3, {
      Creations: [
        {
          ResourceType: TOPIC,
          ResourceName: 'payments',
          ResourcePatternType: LITERAL,
          Principal: 'User:app',
          Host: '*',
          Operation: READ,
          PermissionType: ALLOW,
        },
        {
          ResourceType: TOPIC,
          ResourceName: 'payments',
          ResourcePatternType: LITERAL,
          Principal: 'User:nobody',
          Host: '*',
          Operation: READ,
          PermissionType: ALLOW,
        },
      ],
    });
    expect((answer.Results as { ErrorCode: number }[]).map((result) => result.ErrorCode)).toEqual([0, 42]);
    expect(changes).toBe(before + 1);
    expect(cluster.userSpecs()[0]!.acls).toContainEqual({
      resourceType: 'topic',
      patternType: 'literal',
      name: 'payments',
      operations: ['read'],
      permission: 'allow',
    });
    expect(cluster.principalOf('app')!.acls.some((acl) => acl.name === 'payments')).toBe(true);
  });

  it('deletes the ACLs a filter matches and answers them', async () => {
    const answer = await call(31, 3, {
      Filters: [
        {
          ...describeAll,
          ResourceTypeFilter: TOPIC,
          ResourceNameFilter: 'payments',
          PatternTypeFilter: LITERAL,
        },
      ],
    });
    const [result] = answer.FilterResults as { ErrorCode: number; MatchingAcls: unknown[] }[];
    expect(result).toMatchObject({
      ErrorCode: 0,
      MatchingAcls: [expect.objectContaining({ ResourceName: 'payments' })],
    });
    expect(cluster.userSpecs()[0]!.acls.some((acl) => acl.name === 'payments')).toBe(false);
  });

  it('refuses a user without the right to manage ACLs with CLUSTER_AUTHORIZATION_FAILED', async () => {
    expect((await call(29, 3, describeAll, false)).ErrorCode).toBe(31);
  });

  const onCluster = (operations: ('alter' | 'describe')[], permission: 'allow' | 'deny' = 'allow') => ({
    resourceType: 'cluster' as const,
    patternType: 'literal' as const,
    name: 'kafka-cluster',
    operations,
    permission,
  });
  const creation = {
    ResourceType: TOPIC,
    ResourceName: 'audit',
    ResourcePatternType: LITERAL,
    Principal: 'User:app',
    Host: '*',
    Operation: READ,
    PermissionType: ALLOW,
  };

  it('lets a user with DESCRIBE on the cluster list ACLs, but not change them', async () => {
    const describer = [onCluster(['describe'])];
    expect((await call(29, 3, describeAll, false, describer)).ErrorCode).toBe(0);
    const created = await call(30, 3, { Creations: [creation] }, false, describer);
    expect(created.Results).toEqual([expect.objectContaining({ ErrorCode: 31 })]);
    const deleted = await call(31, 3, { Filters: [describeAll] }, false, describer);
    expect(deleted.FilterResults).toEqual([expect.objectContaining({ ErrorCode: 31, MatchingAcls: [] })]);
    expect(cluster.userSpecs()[0]!.acls.some((acl) => acl.name === 'audit')).toBe(false);
  });

  it('lets a user with ALTER on the cluster create, list and delete ACLs, unless it is denied', async () => {
    const alterer = [onCluster(['alter'])];
    const created = await call(30, 3, { Creations: [creation] }, false, alterer);
    expect(created.Results).toEqual([expect.objectContaining({ ErrorCode: 0 })]);
    const described = await call(29, 3, { ...describeAll, ResourceNameFilter: 'audit' }, false, alterer);
    expect(described.Resources).toEqual([expect.objectContaining({ ResourceName: 'audit' })]);
    const filter = { ...describeAll, ResourceTypeFilter: TOPIC, ResourceNameFilter: 'audit' };
    const denied = [...alterer, onCluster(['alter'], 'deny')];
    const refused = await call(31, 3, { Filters: [filter] }, false, denied);
    expect(refused.FilterResults).toEqual([expect.objectContaining({ ErrorCode: 31 })]);
    const deleted = await call(31, 3, { Filters: [filter] }, false, alterer);
    expect(deleted.FilterResults).toEqual([
      expect.objectContaining({
        ErrorCode: 0,
        MatchingAcls: [expect.objectContaining({ ResourceName: 'audit' })],
      }),
    ]);
    expect(cluster.userSpecs()[0]!.acls.some((acl) => acl.name === 'audit')).toBe(false);
  });
});
