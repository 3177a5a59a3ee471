/** Controllers of the routing parts: route tables, network ACLs and internet gateways. */
import { attachedInternetGateway, effectiveRoutes, routeProblems, aclRuleProblems } from './engine.js';
import {
  INTERNET_GATEWAY,
  NETWORK_ACL,
  ROUTE_TABLE,
  SUBNET,
  type InternetGateway,
  type NetworkAcl,
  type RouteTable,
  type Subnet,
} from '../../crds/vpc.js';
import { TerminalError, type ControllerDefinition } from '../runtime/controller.js';
import { partReconciler, PART_READS } from './part-reconciler.js';
import { cachedParts, vpcRefIndexes } from './parts.js';
import { VpcValidationError } from './validation.js';
import { mainRouteTableId } from './vpc-defaults.js';

export const routeTableController: ControllerDefinition = {
  name: 'route-table',
  for: ROUTE_TABLE,
  reads: PART_READS,
  indexes: vpcRefIndexes(SUBNET),
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
      const subnets = cachedParts<Subnet>(
        context.cache,
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
  indexes: vpcRefIndexes(INTERNET_GATEWAY),
  reconcile: partReconciler<InternetGateway>({
    type: INTERNET_GATEWAY,
    converge(gateway, vpc, context) {
      const vpcId = vpc.metadata.name!;
      const attached = attachedInternetGateway(
        cachedParts<InternetGateway>(context.cache, INTERNET_GATEWAY, gateway.metadata.namespace!, vpcId),
      );
      if (attached && attached.metadata.uid !== gateway.metadata.uid) {
        return Promise.reject(
          new TerminalError(
            'GatewayAlreadyAttached',
            `spec.vpcRef: VPC ${vpcId} already has internet gateway ${attached.metadata.name}`,
            'failed',
          ),
        );
      }
      return Promise.resolve({});
    },
  }),
};
