import { DATA_SERVICE_KINDS } from './data-services.js';
import { INTEGRATION } from './integration.js';
import type { KindDescriptor } from '../control-plane/kind-descriptor.js';
import { VAULT_CLUSTER } from './vault-cluster.js';
import { STACK_KINDS } from './stacks.js';
import { STREAMING_KINDS } from './streaming.js';
import { VPC_KINDS } from './vpc.js';

/**
 * Every kind cloudplane serves. The CRD generator (`npm run gen:crds`) and the runtime registry
 * (crds/registry.ts) both read this list; a kind is added here together with its types file.
 */
export const KINDS: KindDescriptor[] = [
  ...VPC_KINDS,
  VAULT_CLUSTER,
  INTEGRATION,
  ...DATA_SERVICE_KINDS,
  ...STACK_KINDS,
  ...STREAMING_KINDS,
];
