/** The connector runtime of event-streaming clusters (migrations 0019_connect, 0020_connect_source_offsets, 0021_connect_observations). */
export interface ConnectTables {
  connect_connectors: ConnectConnectorsTable;
  connect_source_offsets: ConnectSourceOffsetsTable;
  connect_connector_observations: ConnectConnectorObservationsTable;
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

/** The committed offset of a source that keeps it here (MySQL's binlog position). */
export interface ConnectSourceOffsetsTable {
  cluster: string;
  /** The connector's name. */
  name: string;
  /** JSON object: Debezium's source partition, `{"server": <topic.prefix>}`. */
  source_partition: string;
  /** JSON object: Debezium's offset, e.g. `{"file": "binlog.000003", "pos": 1107}`. */
  source_offset: string;
  updated_at: string;
}

/** A connector run outside the process: what its workers last reported, and a pending restart. */
export interface ConnectConnectorObservationsTable {
  cluster: string;
  name: string;
  /** JSON: Connect's status body (`connector`, `tasks`) and the topics it used; null before the first report. */
  observed: string | null;
  observed_at: string | null;
  /** JSON: `{includeTasks, onlyFailed}` or `{task}`, asked through the API and not yet passed on. */
  restart_request: string | null;
}
