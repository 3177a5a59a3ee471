/**
 * The parts every VPC gets, as AWS makes them: the main route table, the default network ACL
 * (rule 100 allows everything, the catch-all `*` rule denies the rest, both directions) and the
 * default security group (inbound from members of the group itself, outbound anywhere).
 */
import { API_VERSION } from '../../control-plane/kind-descriptor.js';
import type { NetworkAcl, NetworkAclRule, RouteTable, SecurityGroup, Vpc } from '../../crds/vpc.js';
import { defaultPartId } from './ids.js';
import { withOwner } from './parts.js';

/** The number AWS shows as `*`: the rule that matches when no numbered rule did. */
export const CATCH_ALL_RULE_NUMBER = 32767;

const EVERYWHERE = '0.0.0.0/0';

export function mainRouteTableId(vpc: Vpc): string {
  return defaultPartId('rtb', vpc.metadata.uid!, 'main-route-table');
}

export function defaultNetworkAclId(vpc: Vpc): string {
  return defaultPartId('acl', vpc.metadata.uid!, 'default-network-acl');
}

export function defaultSecurityGroupId(vpc: Vpc): string {
  return defaultPartId('sg', vpc.metadata.uid!, 'default-security-group');
}

function meta(vpc: Vpc, name: string) {
  return { name, namespace: vpc.metadata.namespace };
}

export function mainRouteTable(vpc: Vpc): RouteTable {
  return withOwner(
    {
      apiVersion: API_VERSION,
      kind: 'RouteTable',
      metadata: meta(vpc, mainRouteTableId(vpc)),
      spec: { vpcRef: vpc.metadata.name, name: 'main', main: true, routes: [] },
    },
    vpc,
  );
}

const ACL_RULES: NetworkAclRule[] = [
  { ruleNumber: 100, protocol: '-1', cidrBlock: EVERYWHERE, action: 'allow' },
  { ruleNumber: CATCH_ALL_RULE_NUMBER, protocol: '-1', cidrBlock: EVERYWHERE, action: 'deny' },
];

export function defaultNetworkAcl(vpc: Vpc): NetworkAcl {
  return withOwner(
    {
      apiVersion: API_VERSION,
      kind: 'NetworkAcl',
      metadata: meta(vpc, defaultNetworkAclId(vpc)),
      spec: { vpcRef: vpc.metadata.name, isDefault: true, inboundRules: ACL_RULES, outboundRules: ACL_RULES },
    },
    vpc,
  );
}

export function defaultSecurityGroup(vpc: Vpc): SecurityGroup {
  const id = defaultSecurityGroupId(vpc);
  return withOwner(
    {
      apiVersion: API_VERSION,
      kind: 'SecurityGroup',
      metadata: meta(vpc, id),
      spec: {
        vpcRef: vpc.metadata.name,
        name: 'default',
        description: 'default VPC security group',
        isDefault: true,
        inboundRules: [{ protocol: '-1', source: id }],
        outboundRules: [{ protocol: '-1', source: EVERYWHERE }],
      },
    },
    vpc,
  );
}
