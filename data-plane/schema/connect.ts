/** The connector runtime of event-streaming clusters (migration 0019_connect). */
export interface ConnectTables {
  connect_connectors: ConnectConnectorsTable;
}

/** One connector of a cluster. */
export interface ConnectConnectorsTable {
  /** The StreamingCluster's REST id (`esc_…`). */
  cluster: string;
  name: string;
  /** The cluster's namespace (its organization's). */
  namespace: string;
  /** JSON object of the configuration without its secrets. */
  config: string;
  /** The secret keys and values, a JSON object sealed with the connector's associated data. */
  sealed_secrets: string;
  /** `RUNNING`, `PAUSED` or `STOPPED`: what the user asked for. */
  target_state: string;
  /** Grows on every change of configuration and every restart: the worker restarts the tasks. */
  generation: number;
  created_at: string;
  updated_at: string;
}
