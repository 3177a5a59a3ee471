/** The Subnet controller: checks the block against the VPC and its siblings, claims it, counts addresses. */
import { subnetOverlapMessage, subnetProblems } from './engine.js';
import { NAT_GATEWAY, SUBNET, type NatGateway, type Subnet, type SubnetStatus } from '../../crds/vpc.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { ControllerDefinition, ReconcileContext } from '../runtime/controller.js';
import { TerminalError } from '../runtime/controller.js';
import { claimCidr, releaseCidrClaim, vpcScope } from './cidr-claims.js';
import { availableIpCount, parseCidr } from './ipam.js';
import { partReconciler, type PartBehaviour, PART_READS } from './part-reconciler.js';
import { cachedParts, displayName, vpcRefIndexes } from './parts.js';
import { VpcValidationError } from './validation.js';
import { defaultNetworkAclId, mainRouteTableId } from './vpc-defaults.js';

export const SUBNET_FINALIZER = 'cloudplane.dev/subnet-cidr-claim';

/** Addresses held in the subnet: one per NAT gateway living there. */
function assignedAddresses(context: Pick<ReconcileContext, 'cache'>, subnet: Subnet): number {
  const gateways = cachedParts<NatGateway>(
    context.cache,
    NAT_GATEWAY,
    subnet.metadata.namespace!,
    subnet.spec!.vpcRef,
  );
  return gateways.filter((gateway) => gateway.spec?.subnetId === subnet.metadata.name).length;
}

async function claimBlock(subnet: Subnet, database: DataPlane, context: ReconcileContext): Promise<void> {
  const { namespace, name } = subnet.metadata;
  const spec = subnet.spec!;
  const claim = await claimCidr(
    database,
    {
      namespace: namespace!,
      kind: 'Subnet',
      scope: vpcScope(spec.vpcRef),
      resourceId: name,
      resourceName: displayName(subnet),
      cidr: spec.cidrBlock,
    },
    context.clock.now(),
  );
  if (claim.outcome === 'overlap') {
    const { holder } = claim;
    throw new TerminalError(
      'CidrConflict',
      subnetOverlapMessage('spec.cidrBlock', spec.cidrBlock, {
        name: holder.resource_name,
        id: holder.resource_id,
        cidr: holder.cidr_block,
      }),
      'failed',
    );
  }
}

const behaviour = (database: DataPlane): PartBehaviour<Subnet> => ({
  type: SUBNET,
  finalizer: SUBNET_FINALIZER,
  async converge(
    subnet,
    vpc,
    context,
  ): Promise<Omit<SubnetStatus, 'phase' | 'observedGeneration' | 'conditions'>> {
    const spec = subnet.spec!;
    const problems = subnetProblems(
      { cidrBlock: 'spec.cidrBlock', availabilityZone: 'spec.availabilityZone' },
      spec,
      vpc,
    );
    if (problems.length > 0) throw new VpcValidationError(problems);
    await claimBlock(subnet, database, context);
    const assigned = assignedAddresses(context, subnet);
    return {
      availableIpCount: availableIpCount(parseCidr(spec.cidrBlock), assigned),
      assignedIpCount: assigned,
      routeTableId: spec.routeTableId ?? mainRouteTableId(vpc),
      networkAclId: spec.networkAclId ?? defaultNetworkAclId(vpc),
    };
  },
  async finalize(subnet) {
    await releaseCidrClaim(database, subnet.metadata.namespace!, subnet.metadata.name);
  },
});

export const subnetController = (database: DataPlane): ControllerDefinition => ({
  name: 'subnet',
  for: SUBNET,
  reads: PART_READS,
  indexes: vpcRefIndexes(NAT_GATEWAY),
  watches: [
    {
      type: NAT_GATEWAY,
      map: (object) => {
        const subnetId = (object as NatGateway).spec?.subnetId;
        return subnetId ? [{ namespace: object.metadata.namespace, name: subnetId }] : [];
      },
    },
  ],
  reconcile: partReconciler(behaviour(database)),
});
