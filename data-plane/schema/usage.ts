/** Usage summed per hour by the usage aggregation job. */
export interface UsageTables {
  usage_hourly: UsageHourlyTable;
  usage_aggregation_state: UsageAggregationStateTable;
}

/** One meter of one resource over one hour, summed from its samples. */
export interface UsageHourlyTable {
  organization: string;
  meter: string;
  resource_id: string;
  /** The hour's start, ISO 8601 UTC. */
  hour: string;
  resource_type: string;
  resource_name: string;
  unit: string;
  /** The resource's plan or tier where its price depends on it (a streaming cluster's tier). */
  plan: string | null;
  quantity: number;
  /** How many samples the quantity sums. */
  samples: number;
  /** 1 for the running hour, which the next run replaces; 0 once the hour is complete. */
  provisional: number;
  aggregated_at: string;
}

/**
 * The job's watermark (id `usage`): the `recorded_at` of the latest sample it has counted, and
 * when the run that counted it started.
 */
export interface UsageAggregationStateTable {
  id: string;
  watermark: string;
  updated_at: string;
}
