/** `/api/v1/vpcs/:id/security-groups` and `/network-acls`. */
import { API_VERSION } from '../../../control-plane/kind-descriptor.js';
import {
  NETWORK_ACL,
  SECURITY_GROUP,
  type NetworkAcl,
  type NetworkAclRule,
  type RuleProtocol,
  type SecurityGroup,
  type SecurityGroupRule,
} from '../../../crds/vpc.js';
import { newPartId, partIdPattern } from '../../../controllers/vpc/index.js';
import { listParts, withOwner } from '../../../controllers/vpc/index.js';
import { securityGroupRuleProblems } from '../../../controllers/vpc/index.js';
import { conflict } from '../../errors.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { defineRoute, type RouteDefinition, type AuthenticatedContext } from '../../routing/route.js';
import { tenantNamespace } from '../../routing/tenancy.js';
import {
  createdAt,
  ID_SCHEMA,
  invalid,
  readLiveVpc,
  readPart,
  readVpc,
  type VpcParams,
  listPartRows,
} from './vpc-resources.js';

const RULE = {
  type: 'object',
  required: ['protocol', 'source'],
  additionalProperties: false,
  properties: {
    protocol: { type: 'string', description: 'tcp, udp, icmp, or -1 for all' },
    port_range: { type: 'string', examples: ['443-443'] },
    source: { type: 'string', description: 'A CIDR block or a security group id of the same VPC' },
  },
} as const satisfies JsonSchema;

const SECURITY_GROUP_VIEW = {
  type: 'object',
  properties: {
    id: { type: 'string', pattern: '^sg-' },
    name: { type: 'string' },
    description: { type: 'string' },
    inbound_rules: { type: 'array', items: RULE },
    outbound_rules: { type: 'array', items: RULE },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

interface RestRule {
  protocol: string;
  port_range?: string;
  source: string;
}

interface CreateGroupBody {
  name: string;
  description?: string;
  inbound_rules?: RestRule[];
  outbound_rules?: RestRule[];
}

const toSpecRule = (rule: RestRule): SecurityGroupRule => ({
  protocol: rule.protocol as RuleProtocol,
  ...(rule.port_range !== undefined && { portRange: rule.port_range }),
  source: rule.source,
});

const toRestRule = (rule: SecurityGroupRule): RestRule => ({
  protocol: rule.protocol,
  ...(rule.portRange !== undefined && { port_range: rule.portRange }),
  source: rule.source,
});

function groupView(group: SecurityGroup, now: Date) {
  const spec = group.spec!;
  return {
    id: group.metadata.name,
    name: spec.name ?? group.metadata.name,
    description: spec.description ?? '',
    inbound_rules: (spec.inboundRules ?? []).map(toRestRule),
    outbound_rules: (spec.outboundRules ?? []).map(toRestRule),
    created_at: createdAt(group, now),
  };
}

const ALL_PORTS = '0-65535';

function aclView(acl: NetworkAcl) {
  const inbound = (rule: NetworkAclRule) => ({
    rule_number: rule.ruleNumber,
    protocol: rule.protocol,
    port_range: rule.portRange ?? ALL_PORTS,
    source: rule.cidrBlock,
    action: rule.action,
  });
  const outbound = (rule: NetworkAclRule) => ({
    rule_number: rule.ruleNumber,
    protocol: rule.protocol,
    action: rule.action,
  });
  return {
    id: acl.metadata.name,
    is_default: acl.spec?.isDefault ?? false,
    inbound_rules: (acl.spec?.inboundRules ?? []).map(inbound),
    outbound_rules: (acl.spec?.outboundRules ?? []).map(outbound),
  };
}

const base = { area: 'vpc', auth: 'authenticated', tags: ['vpc'] } as const;
const vpcParams = { type: 'object', required: ['id'], properties: { id: ID_SCHEMA } } as const;

async function listSecurityGroups(ctx: AuthenticatedContext<{ params: VpcParams }>) {
  return listPartRows(ctx, SECURITY_GROUP, groupView);
}

async function createSecurityGroup({
  params,
  body,
  principal,
  now,
  store,
}: AuthenticatedContext<{ params: VpcParams; body: CreateGroupBody }>) {
  const namespace = tenantNamespace(principal);
  const vpc = await readLiveVpc(store, namespace, params.id);
  const groups = await listParts<SecurityGroup>(store, SECURITY_GROUP, namespace, params.id);
  const id = newPartId('sg');
  const inbound = (body.inbound_rules ?? []).map(toSpecRule);
  const outbound = body.outbound_rules?.map(toSpecRule) ?? [{ protocol: '-1' as const, source: '0.0.0.0/0' }];
  const problems = securityGroupRuleProblems(
    { inbound, outbound: body.outbound_rules ? outbound : [] },
    new Set([id, ...groups.map((group) => group.metadata.name)]),
    { inbound: 'inbound_rules', outbound: 'outbound_rules', portRange: 'port_range' },
  );
  if (problems.length > 0) throw invalid(problems);
  const name = body.name.trim();
  const namesake = groups.find((group) => (group.spec?.name ?? group.metadata.name) === name);
  if (namesake) {
    throw conflict(
      `a security group named "${name}" already exists in VPC ${params.id}: ${namesake.metadata.name}`,
      {
        details: { existing_security_group_id: namesake.metadata.name },
      },
    );
  }
  const created = await store.create<SecurityGroup>(
    SECURITY_GROUP,
    withOwner<SecurityGroup>(
      {
        apiVersion: API_VERSION,
        kind: 'SecurityGroup',
        metadata: { name: id, namespace },
        spec: {
          vpcRef: params.id,
          name,
          description: body.description ?? '',
          inboundRules: inbound,
          outboundRules: outbound,
        },
      },
      vpc,
    ),
  );
  return {
    status: 201,
    data: { id, name, description: body.description ?? '', created_at: createdAt(created, now()) },
  };
}

async function deleteSecurityGroup({
  params,
  principal,
  store,
}: AuthenticatedContext<{ params: VpcParams & { sg_id: string } }>) {
  const namespace = tenantNamespace(principal);
  await readVpc(store, namespace, params.id);
  const group = await readPart<SecurityGroup>(
    store,
    SECURITY_GROUP,
    namespace,
    params.id,
    params.sg_id,
    'security group',
  );
  if (group.spec?.isDefault) {
    throw conflict(`${params.sg_id} is the default security group of VPC ${params.id}; it goes with the VPC`);
  }
  const groups = await listParts<SecurityGroup>(store, SECURITY_GROUP, namespace, params.id);
  const referrer = groups.find(
    (other) =>
      other.metadata.name !== params.sg_id &&
      [...(other.spec?.inboundRules ?? []), ...(other.spec?.outboundRules ?? [])].some(
        (rule) => rule.source === params.sg_id,
      ),
  );
  if (referrer) {
    throw conflict(
      `security group ${referrer.metadata.name} has a rule naming ${params.sg_id}; remove it first`,
      {
        details: { referencing_security_group_id: referrer.metadata.name },
      },
    );
  }
  await store.delete(SECURITY_GROUP, namespace, params.sg_id);
  return { status: 204 };
}

async function listNetworkAcls({ params, principal, store }: AuthenticatedContext<{ params: VpcParams }>) {
  const namespace = tenantNamespace(principal);
  await readVpc(store, namespace, params.id);
  const acls = await listParts<NetworkAcl>(store, NETWORK_ACL, namespace, params.id);
  return { data: acls.map(aclView) };
}

export const SECURITY_ROUTES: RouteDefinition[] = [
  defineRoute<{ params: VpcParams }>({
    ...base,
    method: 'get',
    path: '/api/v1/vpcs/:id/security-groups',
    scopes: ['vpc:read'],
    summary: "A VPC's security groups",
    request: { params: vpcParams },
    responses: {
      200: { description: 'Security groups', schema: { type: 'array', items: SECURITY_GROUP_VIEW } },
    },
    handler: listSecurityGroups,
  }),
  defineRoute<{ params: VpcParams; body: CreateGroupBody }>({
    ...base,
    method: 'post',
    path: '/api/v1/vpcs/:id/security-groups',
    scopes: ['vpc:write'],
    summary: 'Create a security group',
    description:
      'Rules name a protocol (tcp, udp, icmp, -1), a port range <from>-<to> inside 0-65535, and a source ' +
      'that is a CIDR block or a security group of the same VPC. Without outbound_rules the group may ' +
      'send anywhere. Group names are unique within a VPC.',
    request: {
      params: vpcParams,
      body: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
          description: { type: 'string', maxLength: 255 },
          inbound_rules: { type: 'array', maxItems: 60, items: RULE },
          outbound_rules: { type: 'array', maxItems: 60, items: RULE },
        },
      },
    },
    responses: {
      201: {
        description: 'The new group',
        schema: {
          type: 'object',
          properties: {
            id: SECURITY_GROUP_VIEW.properties.id,
            name: SECURITY_GROUP_VIEW.properties.name,
            description: SECURITY_GROUP_VIEW.properties.description,
            created_at: SECURITY_GROUP_VIEW.properties.created_at,
          },
        },
      },
    },
    handler: createSecurityGroup,
  }),
  defineRoute<{ params: VpcParams & { sg_id: string } }>({
    ...base,
    method: 'delete',
    path: '/api/v1/vpcs/:id/security-groups/:sg_id',
    scopes: ['vpc:write'],
    summary: 'Delete a security group',
    description: "Refused for the VPC's default group and for a group another group's rules name as source.",
    request: {
      params: {
        type: 'object',
        required: ['id', 'sg_id'],
        properties: { id: ID_SCHEMA, sg_id: { type: 'string', pattern: partIdPattern('sg') } },
      },
    },
    responses: { 204: { description: 'Deleted' } },
    handler: deleteSecurityGroup,
  }),
  defineRoute<{ params: VpcParams }>({
    ...base,
    method: 'get',
    path: '/api/v1/vpcs/:id/network-acls',
    scopes: ['vpc:read'],
    summary: "A VPC's network ACLs",
    description: 'Rule number 32767 is the catch-all rule shown as * elsewhere.',
    request: { params: vpcParams },
    responses: {
      200: {
        description: 'Network ACLs',
        schema: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string', pattern: '^acl-' },
              is_default: { type: 'boolean' },
              inbound_rules: { type: 'array', items: { type: 'object' } },
              outbound_rules: { type: 'array', items: { type: 'object' } },
            },
          },
        },
      },
    },
    handler: listNetworkAcls,
  }),
];
