/**
 * The Vpc controller: validates the VPC, claims its block, creates its default parts, counts its
 * parts, and on deletion removes the parts in dependency order before letting the object go and
 * leaving a tombstone.
 */
import { VpcReason, vpcOverlapMessage, vpcLimitMessage, vpcSpecProblems } from './engine.js';
import type { VpcConfig } from '../../config/vpc.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import { VPC, type Vpc, type VpcPart, type VpcStatus } from '../../crds/vpc.js';
import { setCondition } from '../runtime/conditions.js';
import type { ControllerDefinition, ReconcileContext, Reconciler } from '../runtime/controller.js';
import { TerminalError } from '../runtime/controller.js';
import { isStoreError, type KubeObject } from '../../control-plane/types.js';
import { writeStatusIfChanged } from '../runtime/status.js';
import { claimCidr, regionScope, releaseVpcClaims } from './cidr-claims.js';
import {
  DELETION_ORDER,
  displayName,
  INTERNET_GATEWAY,
  cachedParts,
  listParts,
  VPC_PART_INDEXES,
  NAT_GATEWAY,
  NETWORK_ACL,
  ROUTE_TABLE,
  SECURITY_GROUP,
  SUBNET,
} from './parts.js';
import { writeTombstone } from './tombstones.js';
import {
  defaultNetworkAcl,
  defaultNetworkAclId,
  defaultSecurityGroup,
  defaultSecurityGroupId,
  mainRouteTable,
  mainRouteTableId,
} from './vpc-defaults.js';

/** Held while the VPC has parts or claims to clean up. */
export const VPC_FINALIZER = 'cloudplane.dev/vpc-cleanup';

function validate(vpc: Vpc, config: VpcConfig): void {
  const problems = vpcSpecProblems(vpc.spec!, config.regions);
  if (problems.length > 0) {
    throw new TerminalError(VpcReason.InvalidSpec, problems.map((problem) => problem.message).join('; '));
  }
}

async function claimBlock(
  vpc: Vpc,
  config: VpcConfig,
  database: DataPlane,
  context: ReconcileContext,
): Promise<void> {
  const { namespace, name } = vpc.metadata;
  const spec = vpc.spec!;
  const claim = await claimCidr(
    database,
    {
      namespace: namespace!,
      kind: 'Vpc',
      scope: regionScope(spec.region),
      resourceId: name,
      resourceName: displayName(vpc),
      cidr: spec.cidrBlock,
      limit: config.limitPerOrganization,
    },
    context.clock.now(),
  );
  if (claim.outcome === 'overlap') {
    const { holder } = claim;
    throw new TerminalError(
      VpcReason.CidrConflict,
      vpcOverlapMessage('spec.cidrBlock', spec.cidrBlock, {
        name: holder.resource_name,
        id: holder.resource_id,
        cidr: holder.cidr_block,
      }),
    );
  }
  if (claim.outcome === 'limit')
    throw new TerminalError(VpcReason.LimitReached, vpcLimitMessage(claim.limit));
}

async function createIfMissing(
  context: ReconcileContext,
  object: KubeObject,
  type: typeof VPC,
): Promise<void> {
  try {
    await context.store.create(type, object);
  } catch (error) {
    if (!isStoreError(error, 'AlreadyExists')) throw error;
  }
}

function countParts(context: ReconcileContext, vpc: Vpc) {
  const count = (type: typeof VPC) =>
    cachedParts<VpcPart>(context.cache, type, vpc.metadata.namespace!, vpc.metadata.name).length;
  return {
    subnetCount: count(SUBNET),
    routeTableCount: count(ROUTE_TABLE),
    natGatewayCount: count(NAT_GATEWAY),
    internetGatewayCount: count(INTERNET_GATEWAY),
    securityGroupCount: count(SECURITY_GROUP),
    networkAclCount: count(NETWORK_ACL),
  };
}

/**
 * One step of the teardown: deletes the parts of the first kind in DELETION_ORDER that still has
 * any. Answers false while parts remain; their deletion wakes this reconcile again.
 */
async function removeParts(context: ReconcileContext, vpc: Vpc): Promise<boolean> {
  for (const type of DELETION_ORDER) {
    // From the store, not the cache: the finalizer goes once this finds nothing, and a cache that
    // has not yet seen a part created a moment ago would let the VPC go with the part behind it.
    const parts = await listParts<VpcPart>(context.store, type, vpc.metadata.namespace!, vpc.metadata.name);
    if (parts.length === 0) continue;
    for (const part of parts) {
      if (part.metadata.deletionTimestamp) continue;
      try {
        await context.store.delete(type, part.metadata.namespace, part.metadata.name);
      } catch (error) {
        if (!isStoreError(error, 'NotFound')) throw error;
      }
    }
    context.logger.info({ parts: type.kind, remaining: parts.length }, 'removing the VPC parts');
    return false;
  }
  return true;
}

async function finalize(vpc: Vpc, database: DataPlane, context: ReconcileContext): Promise<void> {
  if (!vpc.metadata.finalizers?.includes(VPC_FINALIZER)) return;
  const now = context.clock.now();
  const deleting = setCondition(
    vpc.status?.conditions,
    {
      type: 'Ready',
      status: 'False',
      reason: VpcReason.Deleting,
      message: 'removing the VPC parts',
      observedGeneration: vpc.metadata.generation,
    },
    now,
  );
  const current = await writeStatusIfChanged(context.store, VPC, vpc, {
    ...vpc.status,
    phase: 'deleting',
    conditions: deleting,
  });
  if (!(await removeParts(context, current))) return;
  const spec = current.spec!;
  await writeTombstone(database, {
    namespace: current.metadata.namespace!,
    vpc_id: current.metadata.name,
    name: displayName(current),
    cidr_block: spec.cidrBlock,
    region: spec.region,
    is_default: spec.isDefault ? 1 : 0,
    flow_logs_enabled: spec.enableFlowLogs ? 1 : 0,
    created_at: current.metadata.creationTimestamp ?? now.toISOString(),
    deleted_at: now.toISOString(),
  });
  await releaseVpcClaims(database, current.metadata.namespace!, current.metadata.name);
  await context.store.update(VPC, {
    ...current,
    metadata: {
      ...current.metadata,
      finalizers: current.metadata.finalizers!.filter((finalizer) => finalizer !== VPC_FINALIZER),
    },
  });
  context.logger.info('VPC deleted; tombstone written');
}

/** Shown while the default parts are being made, so `kubectl get vpcs` never shows an empty status. */
async function markProvisioning(vpc: Vpc, context: ReconcileContext): Promise<Vpc> {
  const generation = vpc.metadata.generation;
  return writeStatusIfChanged(context.store, VPC, vpc, {
    phase: 'provisioning',
    observedGeneration: generation,
    conditions: setCondition(
      vpc.status?.conditions,
      {
        type: 'Ready',
        status: 'False',
        reason: VpcReason.Provisioning,
        message: 'creating the main route table, default network ACL and default security group',
        observedGeneration: generation,
      },
      context.clock.now(),
    ),
  });
}

export function vpcReconciler(config: VpcConfig, database: DataPlane): Reconciler {
  return async ({ namespace, name }, context) => {
    let vpc = context.cache.get<Vpc>(VPC, namespace, name);
    if (vpc === undefined) return;
    if (vpc.metadata.deletionTimestamp) return finalize(vpc, database, context);

    validate(vpc, config);
    // Before the claim: a VPC deleted meanwhile must go through `finalize`, which releases it.
    if (!vpc.metadata.finalizers?.includes(VPC_FINALIZER)) {
      vpc = await context.store.update(VPC, {
        ...vpc,
        metadata: { ...vpc.metadata, finalizers: [...(vpc.metadata.finalizers ?? []), VPC_FINALIZER] },
      });
    }
    await claimBlock(vpc, config, database, context);
    if (!vpc.status?.phase) vpc = await markProvisioning(vpc, context);
    await createIfMissing(context, mainRouteTable(vpc), ROUTE_TABLE);
    await createIfMissing(context, defaultNetworkAcl(vpc), NETWORK_ACL);
    await createIfMissing(context, defaultSecurityGroup(vpc), SECURITY_GROUP);

    const generation = vpc.metadata.generation;
    const status: VpcStatus = {
      phase: 'available',
      observedGeneration: generation,
      conditions: setCondition(
        vpc.status?.conditions,
        {
          type: 'Ready',
          status: 'True',
          reason: VpcReason.Available,
          message: 'the VPC and its default parts exist',
          observedGeneration: generation,
        },
        context.clock.now(),
      ),
      ...countParts(context, vpc),
      mainRouteTableId: mainRouteTableId(vpc),
      defaultNetworkAclId: defaultNetworkAclId(vpc),
      defaultSecurityGroupId: defaultSecurityGroupId(vpc),
    };
    await writeStatusIfChanged(context.store, VPC, vpc, status);
  };
}

export function vpcController(config: VpcConfig, database: DataPlane): ControllerDefinition {
  return {
    name: 'vpc',
    for: VPC,
    owns: [...DELETION_ORDER],
    indexes: VPC_PART_INDEXES,
    reconcile: vpcReconciler(config, database),
  };
}
