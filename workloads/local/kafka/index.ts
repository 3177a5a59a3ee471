/** The embedded Kafka-protocol broker: what the local streaming runtime and its tests use. */
export { KafkaCluster, type BrokerAddress, type KafkaClusterOptions } from './cluster.js';
export { listen, type ListenOptions } from './server.js';
export { SqliteLogStore, type LogStore, type StoredTopic } from './log-store.js';
export { SCRAM_MECHANISM } from './scram.js';
export { ErrorCode } from './errors.js';
export { readRecordWindow } from './record-window.js';
