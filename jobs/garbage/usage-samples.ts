/**
 * Usage samples past retention whose hour has been summed into a complete (not provisional)
 * hourly record: the record is what the usage API and the meter sync read, so the samples are no
 * longer needed. Samples of a protected resource stay (when the control plane is reachable to say
 * which those are).
 */
import type { ExpressionBuilder } from 'kysely';
import type { DataPlaneSchema } from '../../data-plane/schema.js';
import type { GcScope, RecordCollector } from './types.js';

function aggregatedBefore(scope: GcScope) {
  const protectedIds = [...(scope.view?.protectedIds ?? [])];
  return (eb: ExpressionBuilder<DataPlaneSchema, 'usage_samples'>) =>
    eb.and([
      eb('usage_samples.hour', '<', scope.cutoff),
      ...(protectedIds.length > 0 ? [eb('usage_samples.resource_id', 'not in', protectedIds)] : []),
      eb.exists(
        eb
          .selectFrom('usage_hourly')
          .select('usage_hourly.hour')
          .whereRef('usage_hourly.organization', '=', 'usage_samples.organization')
          .whereRef('usage_hourly.meter', '=', 'usage_samples.meter')
          .whereRef('usage_hourly.resource_id', '=', 'usage_samples.resource_id')
          .whereRef('usage_hourly.hour', '=', 'usage_samples.hour')
          .where('usage_hourly.provisional', '=', 0),
      ),
    ]);
}

export const AGGREGATED_USAGE_SAMPLES: RecordCollector = {
  shape: 'records',
  name: 'usage_samples',
  reason: 'usage sample past retention, its hour aggregated',
  minimumAgeDays: ({ retentionDays }) => retentionDays,
  async count(scope) {
    const row = await scope.database.kysely
      .selectFrom('usage_samples')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where(aggregatedBefore(scope))
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  },
  async purge(scope) {
    const result = await scope.database.kysely
      .deleteFrom('usage_samples')
      .where(aggregatedBefore(scope))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};
