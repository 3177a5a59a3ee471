/**
 * The NatGateway controller: a gateway is `pending` until it holds a public address from the pool,
 * then `available`. The address is released when the gateway is deleted.
 */
import type { VpcConfig } from '../../config/vpc.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import { NAT_GATEWAY, SUBNET, type NatGateway, type Subnet } from '../../crds/vpc.js';
import type { ControllerDefinition } from '../runtime/controller.js';
import { TerminalError } from '../runtime/controller.js';
import { recordUsage } from '../runtime/usage-samples.js';
import { partReconciler, PART_READS } from './part-reconciler.js';
import { AllocationInUseError, allocatePublicIp, PoolExhaustedError, releasePublicIp } from './public-ips.js';

export const NAT_GATEWAY_FINALIZER = 'cloudplane.dev/nat-public-ip';

export function natGatewayController(config: VpcConfig, database: DataPlane): ControllerDefinition {
  return {
    name: 'nat-gateway',
    for: NAT_GATEWAY,
    reads: [...PART_READS, SUBNET],
    reconcile: partReconciler<NatGateway>({
      type: NAT_GATEWAY,
      finalizer: NAT_GATEWAY_FINALIZER,
      async converge(gateway, vpc, context) {
        const { namespace, name } = gateway.metadata;
        const spec = gateway.spec!;
        const subnet = context.cache.get<Subnet>(SUBNET, namespace, spec.subnetId);
        if (!subnet || subnet.spec?.vpcRef !== vpc.metadata.name) {
          throw new TerminalError(
            'SubnetNotFound',
            `spec.subnetId: subnet "${spec.subnetId}" does not exist in VPC ${vpc.metadata.name}`,
            'failed',
          );
        }
        try {
          const allocation = await allocatePublicIp(
            database,
            {
              pool: config.natPublicIpPool,
              namespace: namespace!,
              natGatewayId: name,
              allocationId: spec.allocationId,
            },
            context.clock.now(),
          );
          // A gateway holding an address is billed by the hour; the sample of an hour counts once.
          await recordUsage(
            database,
            [
              {
                organization: namespace!,
                meter: 'vpc.nat_gateway_hours',
                unit: 'gateway-hour',
                resourceType: 'nat_gateway',
                resourceId: name,
                resourceName: name,
                quantity: 1,
              },
            ],
            context.clock.now(),
          );
          return { publicIp: allocation.address, allocationId: allocation.allocation_id };
        } catch (error) {
          if (error instanceof AllocationInUseError) {
            throw new TerminalError('AllocationInUse', `spec.allocationId: ${error.message}`, 'failed');
          }
          if (error instanceof PoolExhaustedError)
            throw new TerminalError('PoolExhausted', error.message, 'failed');
          throw error;
        }
      },
      async finalize(gateway) {
        await releasePublicIp(database, gateway.metadata.namespace!, gateway.metadata.name);
      },
    }),
  };
}
