/**
 * The schema registry of event-streaming clusters: Confluent Schema Registry's model (subjects,
 * versions, ids, compatibility levels, modes) kept in the data plane per cluster, and real
 * compatibility checks for Avro, JSON Schema and Protobuf.
 */
export { ClusterRegistry, versionSpecOf, type SchemaInput, type VersionSpec } from './cluster-registry.js';
export { countClusterSchemas, removeClusterSchemaRegistry } from './cluster-lifecycle.js';
export {
  compatibilityProblems,
  canonicalSchemaText,
  validateSchema,
  type EarlierVersion,
} from './compatibility.js';
export { clusterUserPasswordMatches, type ClusterUser } from './cluster-user-password.js';
export { SchemaRegistryError } from './schema-registry-error.js';
export {
  COMPATIBILITY_LEVELS,
  SCHEMA_TYPES,
  type CompatibilityLevel,
  type Mode,
  type SchemaContent,
  type SchemaReference,
  type SchemaType,
} from './schema-types.js';
export type { StoredSchema, SubjectVersion } from './subject-store.js';
