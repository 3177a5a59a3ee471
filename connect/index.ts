/**
 * The connector runtime of event-streaming clusters: Kafka Connect's model (connectors, a sink's
 * `tasks.max` tasks, target states, restarts) kept in the data plane per cluster, a worker in the
 * platform process that runs the tasks against the cluster's brokers (records through Kafka's and
 * Confluent's converters, under KIP-298 error handling), and sinks that write PostgreSQL tables
 * (Confluent JDBC sink keys) and S3-compatible objects (Confluent S3 sink keys).
 */
export {
  ConnectService,
  configOf,
  configPatchOf,
  type ConnectCluster,
  type SinkOffset,
} from './connect-service.js';
export type { StreamingFamily } from './cluster-access.js';
export { ConnectError } from './connect-error.js';
