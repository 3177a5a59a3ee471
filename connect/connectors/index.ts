/**
 * The connectors this runtime knows, one folder each: exactly what `GET /connector-plugins` lists.
 * A connector is added here with one line.
 */
import { ELASTICSEARCH_SINK } from './elasticsearch-sink/index.js';
import { JDBC_SINK } from './jdbc-sink/index.js';
import { MONGODB_SOURCE } from './mongodb-source/index.js';
import { MYSQL_SOURCE } from './mysql-source/index.js';
import type { ConnectorPlugin } from './plugin.js';
import { POSTGRES_SOURCE } from './postgres-source/index.js';
import { S3_SINK } from './s3-sink/index.js';

export type { ConfigDefinition, ConfigType, ConnectorPlugin } from './plugin.js';

/** Every connector this runtime runs, in the order `GET /connector-plugins` lists them. */
export const CONNECTOR_PLUGINS: readonly ConnectorPlugin[] = [
  JDBC_SINK,
  S3_SINK,
  ELASTICSEARCH_SINK,
  POSTGRES_SOURCE,
  MYSQL_SOURCE,
  MONGODB_SOURCE,
];
