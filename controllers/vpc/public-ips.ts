/**
 * Public addresses for NAT gateways, from the pool CLOUDPLANE_NAT_PUBLIC_IP_POOL. The address is
 * the primary key of its row, so two gateways can never hold one address even when allocations
 * race: the loser's insert fails and its reconcile retries with the next free address.
 */
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { VpcPublicIpsTable } from '../../data-plane/schema.js';
import { isUniqueViolation } from '../../data-plane/unique-violation.js';
import { newPartId } from './ids.js';
import { addressToString, parseAddress, parseCidr, poolAddresses } from './ipam.js';

export type PublicIpAllocation = VpcPublicIpsTable;

export class PoolExhaustedError extends Error {
  constructor(pool: string) {
    super(`the NAT public address pool ${pool} has no free address`);
    this.name = 'PoolExhaustedError';
  }
}

export class AllocationInUseError extends Error {
  constructor(readonly holder: PublicIpAllocation) {
    super(`allocation ${holder.allocation_id} is in use by NAT gateway ${holder.nat_gateway_id}`);
    this.name = 'AllocationInUseError';
  }
}

export async function findAllocationById(
  database: DataPlane,
  allocationId: string,
): Promise<PublicIpAllocation | undefined> {
  return database.kysely
    .selectFrom('vpc_public_ips')
    .selectAll()
    .where('allocation_id', '=', allocationId)
    .executeTakeFirst();
}

/**
 * The gateway's address, allocating the lowest free one of the pool on first call. Uses
 * `allocationId` as the allocation's id when given, else makes an `eipalloc-` id.
 */
export async function allocatePublicIp(
  database: DataPlane,
  request: { pool: string; namespace: string; natGatewayId: string; allocationId?: string | undefined },
  now: Date,
): Promise<PublicIpAllocation> {
  const existing = await database.kysely
    .selectFrom('vpc_public_ips')
    .selectAll()
    .where('namespace', '=', request.namespace)
    .where('nat_gateway_id', '=', request.natGatewayId)
    .executeTakeFirst();
  if (existing) return existing;
  if (request.allocationId) {
    const holder = await findAllocationById(database, request.allocationId);
    if (holder) throw new AllocationInUseError(holder);
  }
  const held = new Set(
    (await database.kysely.selectFrom('vpc_public_ips').select('address').execute()).map((row) =>
      parseAddress(row.address),
    ),
  );
  for (const address of poolAddresses(parseCidr(request.pool))) {
    if (held.has(address)) continue;
    const row: PublicIpAllocation = {
      address: addressToString(address),
      allocation_id: request.allocationId ?? newPartId('eipalloc'),
      namespace: request.namespace,
      nat_gateway_id: request.natGatewayId,
      allocated_at: now.toISOString(),
    };
    try {
      await database.kysely.insertInto('vpc_public_ips').values(row).execute();
      return row;
    } catch (error) {
      // Another gateway took this address since we read; the next one may be free.
      if (isUniqueViolation(error)) continue;
      throw error;
    }
  }
  throw new PoolExhaustedError(request.pool);
}

export async function releasePublicIp(
  database: DataPlane,
  namespace: string,
  natGatewayId: string,
): Promise<void> {
  await database.kysely
    .deleteFrom('vpc_public_ips')
    .where('namespace', '=', namespace)
    .where('nat_gateway_id', '=', natGatewayId)
    .execute();
}
