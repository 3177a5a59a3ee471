/**
 * The VPC family's decisions, pure: validation problems and the messages the REST 409s and the
 * Ready conditions share, route tables' effective routes and their states, rule problems. The
 * controllers and the routes call these; nothing here reads or writes.
 */
import {
  type Vpc,
  type InternetGateway,
  type NetworkAclRule,
  type Route,
  type RouteTable,
  type SecurityGroupRule,
} from '../../crds/vpc.js';
import {
  checkBlock,
  checkRegion,
  collectProblems,
  checkAvailabilityZone,
  checkSubnetBlock,
  VpcValidationError,
  checkAnyBlock,
  checkPortRange,
  PROTOCOLS,
  checkSecurityGroupRule,
} from './validation.js';
import { CATCH_ALL_RULE_NUMBER } from './vpc-defaults.js';
import { parseCidr, formatCidr } from './ipam.js';
import { PART_ID } from './ids.js';

export const SPEC_RULE_FIELDS: RuleFieldNames = {
  inbound: 'spec.inboundRules',
  outbound: 'spec.outboundRules',
  portRange: 'portRange',
};

/** Every problem of the group's rules; `groupIds` are the security groups of its VPC. */
export function securityGroupRuleProblems(
  rules: { inbound: readonly SecurityGroupRule[]; outbound: readonly SecurityGroupRule[] },
  groupIds: ReadonlySet<string>,
  names: RuleFieldNames,
) {
  const check = (field: string, rule: SecurityGroupRule, portRangeRequired: boolean) => () =>
    checkSecurityGroupRule(field, rule, { groupIds, portRangeRequired, names });
  return collectProblems([
    ...rules.inbound.map((rule, index) => check(`${names.inbound}[${index}]`, rule, true)),
    ...rules.outbound.map((rule, index) => check(`${names.outbound}[${index}]`, rule, false)),
  ]);
}

/** The route every table starts with: the VPC's own block stays inside the VPC. */
export function localRoute(vpc: Vpc): Route {
  return { destination: formatCidr(parseCidr(vpc.spec!.cidrBlock)), target: 'local' };
}

/** The routes in effect: the local route, then the table's own. */
export function effectiveRoutes(table: RouteTable, vpc: Vpc): Route[] {
  const local = localRoute(vpc);
  return [local, ...(table.spec?.routes ?? []).filter((route) => route.target !== 'local')];
}

/** The routes with their state; `liveTargets` are the ids of the VPC's gateways not being deleted. */
export function routeStates(routes: readonly Route[], liveTargets: ReadonlySet<string>): RouteWithState[] {
  return routes.map((route) => ({
    ...route,
    state: route.target === 'local' || liveTargets.has(route.target) ? 'active' : 'blackhole',
  }));
}

export function routeProblems(routes: readonly Route[]) {
  return collectProblems(
    routes.flatMap((route, index) => [
      () => checkAnyBlock(`spec.routes[${index}].destination`, route.destination),
      () => {
        if (route.target !== 'local' && !PART_ID.test(route.target)) {
          throw new VpcValidationError([
            {
              field: `spec.routes[${index}].target`,
              rule: 'target',
              message: `spec.routes[${index}].target: ${JSON.stringify(route.target)} is not local or a gateway id`,
            },
          ]);
        }
      },
    ]),
  );
}

export function aclRuleProblems(field: string, rules: readonly NetworkAclRule[]) {
  return collectProblems(
    rules.flatMap((rule, index) => [
      () => checkAnyBlock(`${field}[${index}].cidrBlock`, rule.cidrBlock),
      () => {
        if (rule.portRange !== undefined) checkPortRange(`${field}[${index}].portRange`, rule.portRange);
      },
      () => {
        const problems = [];
        if (!PROTOCOLS.includes(rule.protocol)) {
          problems.push({
            field: `${field}[${index}].protocol`,
            rule: 'protocol',
            message: `${field}[${index}].protocol: ${JSON.stringify(rule.protocol)} is not one of tcp, udp, icmp, -1`,
          });
        }
        if (rule.ruleNumber < 1 || rule.ruleNumber > CATCH_ALL_RULE_NUMBER) {
          problems.push({
            field: `${field}[${index}].ruleNumber`,
            rule: 'rule_number',
            message: `${field}[${index}].ruleNumber: ${rule.ruleNumber} must be from 1 to ${CATCH_ALL_RULE_NUMBER}`,
          });
        }
        if (problems.length > 0) throw new VpcValidationError(problems);
      },
    ]),
  );
}

/** The sentence both the REST 409 and the Ready condition use for an overlapping subnet. */
export function subnetOverlapMessage(
  field: string,
  cidr: string,
  sibling: { name: string; id: string; cidr: string },
) {
  return `${field}: ${cidr} overlaps subnet "${sibling.name}" (${sibling.id}) with block ${sibling.cidr}`;
}

/** Checks that need only the subnet and its VPC; shared with the REST route. */
export function subnetProblems(
  fields: { cidrBlock: string; availabilityZone: string },
  spec: { cidrBlock: string; availabilityZone: string },
  vpc: Vpc,
) {
  return collectProblems([
    () => checkSubnetBlock(fields.cidrBlock, spec.cidrBlock, parseCidr(vpc.spec!.cidrBlock)),
    () => checkAvailabilityZone(fields.availabilityZone, spec.availabilityZone, vpc.spec!.region),
  ]);
}

/** Ready condition reasons. */
export const VpcReason = {
  Provisioning: 'Provisioning',
  Available: 'Available',
  InvalidSpec: 'InvalidSpec',
  CidrConflict: 'CidrConflict',
  LimitReached: 'VpcLimitReached',
  Deleting: 'Deleting',
} as const;

/** The sentence both the REST 409 and the Ready condition use for an overlapping VPC. */
export function vpcOverlapMessage(
  field: string,
  cidr: string,
  other: { name: string; id: string; cidr: string },
) {
  return `${field}: ${cidr} overlaps VPC "${other.name}" (${other.id}) with block ${other.cidr} in the same region`;
}

export function vpcLimitMessage(limit: number): string {
  return `the organization already has ${limit} VPCs, the limit (CLOUDPLANE_VPC_LIMIT); delete one first`;
}

/** Field names as the caller spells them: REST (`inbound_rules`, `port_range`) or the object's. */
export interface RuleFieldNames {
  inbound: string;
  outbound: string;
  portRange: string;
}

export interface RouteWithState extends Route {
  state: RouteState;
}

/**
 * `active` while the route's target exists; `blackhole` once its gateway is gone or going. As on
 * AWS, deleting a gateway leaves the routes that target it in place, dropping their traffic,
 * until they are deleted or the gateway's id is routed anew: the table never changes silently.
 */
export type RouteState = 'active' | 'blackhole';

/** What is wrong with a VPC's spec on its own: its block, and its region among the platform's. */
export function vpcSpecProblems(spec: { cidrBlock: string; region: string }, regions: readonly string[]) {
  return collectProblems([
    () => checkBlock('spec.cidrBlock', spec.cidrBlock),
    () => checkRegion('spec.region', spec.region, regions),
  ]);
}

/**
 * The internet gateway a VPC keeps when several name it: the first made (then by name, for a
 * stable answer), as the REST API refuses a second one. The others are Stalled until removed.
 */
export function attachedInternetGateway(gateways: readonly InternetGateway[]): InternetGateway | undefined {
  return gateways
    .filter((gateway) => !gateway.metadata.deletionTimestamp)
    .sort(
      (a, b) =>
        (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
        a.metadata.name!.localeCompare(b.metadata.name!),
    )[0];
}
