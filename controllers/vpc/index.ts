import type { VpcConfig } from '../../config/config.js';
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

/** The controllers of the VPC family, configured with the platform's regions, limit and address pool. */
export function vpcControllers(config: VpcConfig): ControllerDefinition[] {
  return [
    vpcController(config),
    subnetController,
    securityGroupController,
    networkAclController,
    routeTableController,
    internetGatewayController,
    natGatewayController(config),
  ];
}
