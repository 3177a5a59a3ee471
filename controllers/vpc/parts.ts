/** How parts hang off their VPC: labels, owner references, and finding a VPC's parts. */
import type { CacheIndex, CacheReader } from '../runtime/controller.js';
import {
  INTERNET_GATEWAY,
  NAT_GATEWAY,
  NETWORK_ACL,
  ROUTE_TABLE,
  SECURITY_GROUP,
  SUBNET,
  type Vpc,
  type VpcPart,
} from '../../crds/vpc.js';
import type { KindDescriptor } from '../../control-plane/kind-descriptor.js';
import { isControlledBy, withControllerReference } from '../../control-plane/owner-references.js';
import type { ObjectStore } from '../../control-plane/types.js';
import { VPC_LABEL } from '../../crds/annotations.js';

/** The order a VPC's deletion removes its parts: what depends on others goes first. */
export const DELETION_ORDER: readonly KindDescriptor[] = [
  NAT_GATEWAY,
  INTERNET_GATEWAY,
  SUBNET,
  ROUTE_TABLE,
  SECURITY_GROUP,
  NETWORK_ACL,
];

/** Whether the part already names this VPC as its controlling owner and carries its label. */
export function isOwnedBy(part: VpcPart, vpc: Vpc): boolean {
  return isControlledBy(part, vpc) && part.metadata.labels?.[VPC_LABEL] === vpc.metadata.name;
}

/** The part with its VPC set as controlling owner (replacing any other controller) and labelled. */
export function withOwner<T extends VpcPart>(part: T, vpc: Vpc): T {
  const owned = withControllerReference(part, vpc);
  return {
    ...owned,
    metadata: { ...owned.metadata, labels: { ...part.metadata.labels, [VPC_LABEL]: vpc.metadata.name } },
  };
}

/** The cache index of each part kind by `<namespace>/<spec.vpcRef>`. */
export const VPC_REF_INDEX = 'vpcRef';

export const VPC_PART_INDEXES: CacheIndex[] = [
  SUBNET,
  SECURITY_GROUP,
  NETWORK_ACL,
  ROUTE_TABLE,
  INTERNET_GATEWAY,
  NAT_GATEWAY,
].map((type) => ({
  type,
  name: VPC_REF_INDEX,
  keys: (object) => {
    const vpcRef = (object as VpcPart).spec?.vpcRef;
    return vpcRef === undefined ? [] : [`${object.metadata.namespace ?? ''}/${vpcRef}`];
  },
}));

/** The `vpcRef` indexes of the given part kinds, for a controller's `indexes`. */
export function vpcRefIndexes(...types: KindDescriptor[]): CacheIndex[] {
  return VPC_PART_INDEXES.filter((index) => types.includes(index.type as KindDescriptor));
}

/** The VPC's parts of one kind, from the informer cache through the `vpcRef` index. */
export function cachedParts<T extends VpcPart>(
  cache: CacheReader,
  type: KindDescriptor,
  namespace: string,
  vpcId: string,
): T[] {
  return cache.byIndex<T>(type, VPC_REF_INDEX, `${namespace}/${vpcId}`);
}

/**
 * The VPC's parts of one kind, read from the store: for the facade, and for a controller that
 * must not act on a cache behind its own writes. Selected by `spec.vpcRef` rather than by label
 * so parts applied with kubectl count before their controller has labelled them.
 */
export async function listParts<T extends VpcPart>(
  store: ObjectStore,
  type: KindDescriptor,
  namespace: string,
  vpcId: string,
): Promise<T[]> {
  const { items } = await store.list<T>(type, { namespace });
  return items.filter((item) => item.spec?.vpcRef === vpcId);
}

/** The part's display name: `spec.name` when set, else the object name. */
export function displayName(object: { metadata: { name: string }; spec?: { name?: string } }): string {
  return object.spec?.name ?? object.metadata.name;
}

export { SUBNET, SECURITY_GROUP, NETWORK_ACL, ROUTE_TABLE, INTERNET_GATEWAY, NAT_GATEWAY };
