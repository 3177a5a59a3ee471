/** The schema registry of event-streaming clusters (migration 0018_schema_registry). */
export interface SchemaRegistryTables {
  schema_registry_schemas: SchemaRegistrySchemasTable;
  schema_registry_versions: SchemaRegistryVersionsTable;
  schema_registry_settings: SchemaRegistrySettingsTable;
}

/** One schema's content, with its id global to the cluster. */
export interface SchemaRegistrySchemasTable {
  /** The StreamingCluster's REST id (`esc_…`). */
  cluster: string;
  id: number;
  /** `AVRO`, `JSON` or `PROTOBUF`. */
  schema_type: string;
  /** The schema text as served: compact JSON for Avro and JSON Schema, the source for Protobuf. */
  schema: string;
  /** JSON array of `{name, subject, version}`. */
  schema_references: string;
  /** A digest of type, schema and references: the same content keeps one id. */
  fingerprint: string;
  created_at: string;
}

/** One version of a subject. */
export interface SchemaRegistryVersionsTable {
  cluster: string;
  subject: string;
  version: number;
  schema_id: number;
  /** 1 once soft-deleted; a permanent delete removes the row. */
  deleted: number;
  created_at: string;
}

/** The compatibility level and mode of a subject, or of the whole registry (subject `''`). */
export interface SchemaRegistrySettingsTable {
  cluster: string;
  subject: string;
  compatibility: string | null;
  mode: string | null;
}
