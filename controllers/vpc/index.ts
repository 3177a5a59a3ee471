import type { VpcConfig } from '../../config/vpc.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { ControllerDefinition } from '../runtime/controller.js';
import { natGatewayController } from './nat-gateway-controller.js';
import {
  internetGatewayController,
  networkAclController,
  routeTableController,
} from './routing-controllers.js';
import { securityGroupController } from './security-group-controller.js';
import { subnetController } from './subnet-controller.js';
import { vpcController } from './vpc-controller.js';
export { VPC_FINALIZER } from './vpc-controller.js';
export {
  claimCidr,
  claimedBlocks,
  claimedVpcCount,
  regionScope,
  releaseCidrClaim,
  vpcScope,
} from './cidr-claims.js';
export { newPartId, newSubnetId, newVpcId, partIdPattern } from './ids.js';
export { availableIpCount, formatCidr, nextFreeBlocks, parseCidr } from './ipam.js';
export { listParts, withOwner } from './parts.js';
export { findAllocationById } from './public-ips.js';
export {
  effectiveRoutes,
  localRoute,
  routeStates,
  securityGroupRuleProblems,
  subnetOverlapMessage,
  subnetProblems,
  vpcLimitMessage,
  vpcOverlapMessage,
} from './engine.js';
export {
  countTombstonesDeletedBefore,
  findTombstone,
  listTombstones,
  purgeTombstonesDeletedBefore,
} from './tombstones.js';
export type { VpcTombstone } from './tombstones.js';
export {
  MAX_BLOCK_PREFIX,
  MIN_BLOCK_PREFIX,
  VpcValidationError,
  checkAnyBlock,
  checkBlock,
  checkRegion,
  collectProblems,
} from './validation.js';
export type { ValidationProblem } from './validation.js';
export { defaultNetworkAclId, mainRouteTableId } from './vpc-defaults.js';

/**
 * The controllers of the VPC family, configured with the platform's regions, limit and address
 * pool; CIDR claims, tombstones and public addresses live in the data plane.
 */
export function vpcControllers(config: VpcConfig, database: DataPlane): ControllerDefinition[] {
  return [
    vpcController(config, database),
    subnetController(database),
    securityGroupController,
    networkAclController,
    routeTableController,
    internetGatewayController,
    natGatewayController(config, database),
  ].map((controller) => ({ ...controller, concurrency: VPC_CONCURRENCY }));
}

/**
 * VPC reconciles only write objects and rows: mostly they wait for their writes to reach the disk,
 * and concurrent ones share those flushes (group commit). An apply of thousands of VPCs needs that;
 * controllers that start processes keep the runtime's default.
 */
const VPC_CONCURRENCY = 8;
