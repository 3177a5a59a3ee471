import type { DataPlane } from '../data-plane/data-plane.js';
import type { QuotasConfig } from '../config/quotas.js';
import type { WorkloadRuntime } from '../workloads/runtime.js';
import { dataServiceControllers } from './data-services/index.js';
import type { VpcConfig } from '../config/vpc.js';
import type { IntegrationServices } from '../integrations/connection.js';
import { integrationController } from './integration/index.js';
import { stackControllers } from './stacks/index.js';
import { streamingControllers } from './streaming/index.js';
import type { StreamingConfig } from '../config/streaming.js';
import type { ControllerDefinition } from './runtime/controller.js';
import { vaultClusterController } from './vaultcluster/index.js';
import type { VaultEngine } from '../vault/vault-engine.js';
import { vpcControllers } from './vpc/index.js';

/** What the controllers need from the process that runs them. */
export interface ControllerServices {
  /** The data plane: CIDR claims, tombstones and public addresses of the VPC family. */
  database: DataPlane;
  vpc: VpcConfig;
  vault: VaultEngine;
  /** Where a vault cluster's Vault-compatible API answers. */
  vaultApiAddress(namespace: string, name: string): string;
  /** What the Integration controller checks credentials with. */
  integrations: IntegrationServices;
  /** Where managed data services run. */
  workloads: WorkloadRuntime;
  quotas: QuotasConfig;
  streaming: StreamingConfig;
  /** Seals what the controllers generate and must show once more (streaming users' passwords). */
  platformKey: Buffer;
}

/**
 * Every controller the platform runs: the one place that says which run, for the embedded
 * `serve` and the cluster `operator` alike.
 */
export function platformControllers(services: ControllerServices): ControllerDefinition[] {
  return [
    ...vpcControllers(services.vpc, services.database),
    vaultClusterController({
      engine: services.vault,
      database: services.database,
      apiAddress: services.vaultApiAddress,
    }),
    integrationController(services.integrations),
    ...dataServiceControllers({
      runtime: services.workloads,
      vault: services.vault,
      database: services.database,
      quotas: services.quotas,
    }),
    ...stackControllers({
      database: services.database,
      vault: services.vault,
      runtime: services.workloads,
    }),
    ...streamingControllers({
      runtime: services.workloads,
      database: services.database,
      platformKey: services.platformKey,
      regions: services.vpc.regions,
      config: services.streaming,
    }),
  ];
}
