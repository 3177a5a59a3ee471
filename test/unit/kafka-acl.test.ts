import { describe, expect, it } from 'vitest';
import type { AclOperation, StreamingAcl } from '../../workloads/runtime.js';
import {
  isAllowed,
  mayWriteIdempotently,
  principalOf,
  type ResourceType,
} from '../../workloads/local/kafka/acl.js';
import { scramCredential } from '../../security/scram.js';

const credential = scramCredential('p');
const allow = (
  resourceType: ResourceType,
  patternType: 'literal' | 'prefixed',
  name: string,
  operations: AclOperation[],
): StreamingAcl => ({
  resourceType,
  patternType,
  name,
  operations,
  permission: 'allow',
});
const deny = (
  resourceType: ResourceType,
  patternType: 'literal' | 'prefixed',
  name: string,
  operations: AclOperation[],
): StreamingAcl => ({
  ...allow(resourceType, patternType, name, operations),
  permission: 'deny',
});

const user = principalOf({
  name: 'u',
  credential,
  consumerGroup: 'billing-*',
  acls: [
    allow('topic', 'prefixed', 'orders.', ['read', 'write']),
    deny('topic', 'literal', 'orders.secret', ['read']),
    allow('topic', 'literal', 'audit', ['describe']),
    allow('group', 'literal', 'exact-group', ['read']),
  ],
});

describe('ACL evaluation', () => {
  it.each<[ResourceType, string, AclOperation, boolean]>([
    ['topic', 'orders.eu', 'write', true],
    ['topic', 'orders.eu', 'read', true],
    ['topic', 'orders.eu', 'describe', true],
    ['topic', 'orders.eu', 'delete', false],
    ['topic', 'orders.secret', 'read', false],
    ['topic', 'orders.secret', 'write', true],
    ['topic', 'orders', 'read', false],
    ['topic', 'audit', 'describe', true],
    ['topic', 'audit', 'read', false],
    ['topic', 'unrelated', 'describe', false],
    ['group', 'billing-daily', 'read', true],
    ['group', 'billing-daily', 'describe', true],
    ['group', 'billing-daily', 'delete', false],
    ['group', 'billing', 'read', false],
    ['group', 'exact-group', 'read', true],
    ['group', 'exact-group-2', 'read', false],
    ['group', 'orders.eu', 'read', false],
  ])('%s %s %s → %s', (type, name, operation, expected) => {
    expect(isAllowed(user, type, name, operation)).toBe(expected);
  });

  it('allows nothing without ACLs, and everything to the superuser', () => {
    const nobody = principalOf({ name: 'n', credential, acls: [] });
    expect(isAllowed(nobody, 'topic', 'any', 'describe')).toBe(false);
    expect(isAllowed({ name: 'root', superuser: true, acls: [] }, 'group', 'any', 'delete')).toBe(true);
  });

  it('takes a literal consumer group without a star as that group only', () => {
    const member = principalOf({ name: 'm', credential, consumerGroup: 'reports', acls: [] });
    expect(isAllowed(member, 'group', 'reports', 'read')).toBe(true);
    expect(isAllowed(member, 'group', 'reports-2', 'read')).toBe(false);
  });

  it('checks transactional ids like topics, WRITE implying DESCRIBE', () => {
    const producer = principalOf({
      name: 'p',
      credential,
      acls: [allow('transactional_id', 'prefixed', 'billing-', ['write'])],
    });
    expect(isAllowed(producer, 'transactional_id', 'billing-1', 'write')).toBe(true);
    expect(isAllowed(producer, 'transactional_id', 'billing-1', 'describe')).toBe(true);
    expect(isAllowed(producer, 'transactional_id', 'orders-1', 'write')).toBe(false);
  });

  it.each<[string, StreamingAcl[], boolean]>([
    [
      'IDEMPOTENT_WRITE on the cluster',
      [allow('cluster', 'literal', 'kafka-cluster', ['idempotent_write'])],
      true,
    ],
    ['WRITE on some topic', [allow('topic', 'prefixed', 'orders', ['write'])], true],
    ['READ only', [allow('topic', 'prefixed', 'orders', ['read'])], false],
    [
      'WRITE denied on every topic',
      [allow('topic', 'prefixed', 'orders', ['write']), deny('topic', 'literal', '*', ['write'])],
      false,
    ],
  ])('may be an idempotent producer with %s: %s', (_, acls, expected) => {
    expect(mayWriteIdempotently(principalOf({ name: 'i', credential, acls }))).toBe(expected);
  });
});
