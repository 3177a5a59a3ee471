/**
 * Hourly usage samples of real resources, for the usage aggregation to sum. A sample's id is
 * `<meter>:<resource_id>:<hour>`, so a controller writing it on every refresh counts it once.
 */
import type { DataPlane } from '../../data-plane/data-plane.js';

export interface UsageSample {
  organization: string;
  meter: string;
  unit: string;
  resourceType: string;
  resourceId: string;
  resourceName: string;
  quantity: number;
  /** The resource's plan or tier, where the meter's price depends on it. */
  plan?: string;
}

const HOUR_MS = 3_600_000;

export function hourOf(moment: Date): string {
  return new Date(Math.floor(moment.getTime() / HOUR_MS) * HOUR_MS).toISOString();
}

export async function recordUsage(
  database: DataPlane,
  samples: readonly UsageSample[],
  now: Date,
): Promise<void> {
  const hour = hourOf(now);
  for (const sample of samples) {
    await database.kysely
      .insertInto('usage_samples')
      .values({
        id: `${sample.meter}:${sample.resourceId}:${hour}`,
        organization: sample.organization,
        meter: sample.meter,
        unit: sample.unit,
        resource_type: sample.resourceType,
        resource_id: sample.resourceId,
        resource_name: sample.resourceName,
        hour,
        quantity: sample.quantity,
        recorded_at: now.toISOString(),
        plan: sample.plan ?? null,
      })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .execute();
  }
}
