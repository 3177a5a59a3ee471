/** Managed data services: quota claims and hourly usage samples. */
export interface DataServicesTables {
  quota_claims: QuotaClaimsTable;
  usage_samples: UsageSamplesTable;
}

/** What one resource counts against one quota of its organization, until it is gone. */
export interface QuotaClaimsTable {
  namespace: string;
  /** `databases`, `database_storage_gb`, `nfs_shares`, `nfs_storage_gb`, `backups`, … */
  quota: string;
  resource_id: string;
  amount: number;
  created_at: string;
}

/** One meter's quantity for one resource over one hour; the id is `<meter>:<resource_id>:<hour>`. */
export interface UsageSamplesTable {
  id: string;
  organization: string;
  /** `database.storage_gb_hours`, `database.memory_mb_hours`, `nfs.gb_hours`, `backup.storage_gb_hours`. */
  meter: string;
  unit: string;
  resource_type: string;
  resource_id: string;
  resource_name: string;
  /** The hour's start, ISO 8601 UTC. */
  hour: string;
  quantity: number;
  recorded_at: string;
  /** The resource's plan or tier where its price depends on it (a streaming cluster's tier); added by 0012. */
  plan: string | null;
}
