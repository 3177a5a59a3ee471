/** Controllers of the routing parts: route tables, network ACLs and internet gateways. */
import {
  INTERNET_GATEWAY,
  NETWORK_ACL,
  ROUTE_TABLE,
  SUBNET,
  type InternetGateway,
  type NetworkAcl,
  type NetworkAclRule,
  type Route,
  type RouteTable,
  type Subnet,
  type Vpc,
} from '../../crds/vpc.js';
import type { ControllerDefinition } from '../runtime/controller.js';
import { formatCidr, parseCidr } from './ipam.js';
import { PART_ID } from './ids.js';
import { partReconciler, PART_READS } from './part-reconciler.js';
import { listParts } from './parts.js';
import {
  checkAnyBlock,
  checkPortRange,
  collectProblems,
  PROTOCOLS,
  VpcValidationError,
} from './validation.js';
import { CATCH_ALL_RULE_NUMBER, mainRouteTableId } from './vpc-defaults.js';

/** The route every table starts with: the VPC's own block stays inside the VPC. */
export function localRoute(vpc: Vpc): Route {
  return { destination: formatCidr(parseCidr(vpc.spec!.cidrBlock)), target: 'local' };
}

/** The routes in effect: the local route, then the table's own. */
export function effectiveRoutes(table: RouteTable, vpc: Vpc): Route[] {
  const local = localRoute(vpc);
  return [local, ...(table.spec?.routes ?? []).filter((route) => route.target !== 'local')];
}

/**
 * `active` while the route's target exists; `blackhole` once its gateway is gone or going. As on
 * AWS, deleting a gateway leaves the routes that target it in place, dropping their traffic,
 * until they are deleted or the gateway's id is routed anew: the table never changes silently.
 */
export type RouteState = 'active' | 'blackhole';

export interface RouteWithState extends Route {
  state: RouteState;
}

/** The routes with their state; `liveTargets` are the ids of the VPC's gateways not being deleted. */
export function routeStates(routes: readonly Route[], liveTargets: ReadonlySet<string>): RouteWithState[] {
  return routes.map((route) => ({
    ...route,
    state: route.target === 'local' || liveTargets.has(route.target) ? 'active' : 'blackhole',
  }));
}

function routeProblems(routes: readonly Route[]) {
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

export const routeTableController: ControllerDefinition = {
  name: 'route-table',
  for: ROUTE_TABLE,
  reads: PART_READS,
  watches: [
    {
      type: SUBNET,
      map: (object) => {
        const subnet = object as Subnet;
        const table = subnet.spec?.routeTableId ?? subnet.status?.routeTableId;
        return table ? [{ namespace: object.metadata.namespace, name: table }] : [];
      },
    },
  ],
  reconcile: partReconciler<RouteTable>({
    type: ROUTE_TABLE,
    async converge(table, vpc, context) {
      const problems = routeProblems(table.spec?.routes ?? []);
      if (problems.length > 0) throw new VpcValidationError(problems);
      const subnets = await listParts<Subnet>(
        context.store,
        SUBNET,
        table.metadata.namespace!,
        vpc.metadata.name,
      );
      const associations = subnets.filter(
        (subnet) => (subnet.spec?.routeTableId ?? mainRouteTableId(vpc)) === table.metadata.name,
      ).length;
      return { routes: effectiveRoutes(table, vpc), subnetAssociations: associations };
    },
  }),
};

function aclRuleProblems(field: string, rules: readonly NetworkAclRule[]) {
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

export const networkAclController: ControllerDefinition = {
  name: 'network-acl',
  for: NETWORK_ACL,
  reads: PART_READS,
  reconcile: partReconciler<NetworkAcl>({
    type: NETWORK_ACL,
    converge(acl) {
      const problems = [
        ...aclRuleProblems('spec.inboundRules', acl.spec?.inboundRules ?? []),
        ...aclRuleProblems('spec.outboundRules', acl.spec?.outboundRules ?? []),
      ];
      if (problems.length > 0) return Promise.reject(new VpcValidationError(problems));
      return Promise.resolve({});
    },
  }),
};

export const internetGatewayController: ControllerDefinition = {
  name: 'internet-gateway',
  for: INTERNET_GATEWAY,
  reads: PART_READS,
  reconcile: partReconciler<InternetGateway>({ type: INTERNET_GATEWAY, converge: () => Promise.resolve({}) }),
};
