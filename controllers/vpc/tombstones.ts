/**
 * What is left of a VPC once its object is gone: enough to list it with `status=deleted` until
 * garbage collection purges it after the retention period.
 */
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { VpcTombstonesTable } from '../../data-plane/schema.js';

export type VpcTombstone = VpcTombstonesTable;

/** Records the tombstone; a second write for the same VPC keeps the first. */
export async function writeTombstone(database: DataPlane, tombstone: VpcTombstone): Promise<void> {
  await database.kysely
    .insertInto('vpc_tombstones')
    .values(tombstone)
    .onConflict((conflict) => conflict.columns(['namespace', 'vpc_id']).doNothing())
    .execute();
}

export async function listTombstones(database: DataPlane, namespace: string): Promise<VpcTombstone[]> {
  return database.kysely
    .selectFrom('vpc_tombstones')
    .selectAll()
    .where('namespace', '=', namespace)
    .orderBy('created_at')
    .orderBy('vpc_id')
    .execute();
}

export async function findTombstone(
  database: DataPlane,
  namespace: string,
  vpcId: string,
): Promise<VpcTombstone | undefined> {
  return database.kysely
    .selectFrom('vpc_tombstones')
    .selectAll()
    .where('namespace', '=', namespace)
    .where('vpc_id', '=', vpcId)
    .executeTakeFirst();
}

export async function countTombstonesDeletedBefore(database: DataPlane, cutoff: string): Promise<number> {
  const row = await database.kysely
    .selectFrom('vpc_tombstones')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('deleted_at', '<', cutoff)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function purgeTombstonesDeletedBefore(database: DataPlane, cutoff: string): Promise<number> {
  const result = await database.kysely
    .deleteFrom('vpc_tombstones')
    .where('deleted_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
