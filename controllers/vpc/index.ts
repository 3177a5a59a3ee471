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
  ];
}
