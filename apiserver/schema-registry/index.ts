/**
 * The schema registry of every streaming cluster, in Confluent Schema Registry's wire format:
 * mounted at `/streaming/:clusterId/schema-registry`, its bodies and errors (`{error_code,
 * message}`) are Confluent's, so Confluent's clients and serializers work unchanged. It does its
 * own authentication (see `RegistryAccess`).
 */
import type { Authenticator } from '../../accounts/principal.js';
import type { ObjectStore } from '../../control-plane/types.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { Logger } from '../../observability/logger.js';
import { ClusterRegistry, SchemaRegistryError } from '../../schema-registry/index.js';
import { compatibilityRoutes } from './compatibility-routes.js';
import { RegistryAccess } from './registry-access.js';
import { schemaRoutes } from './schema-routes.js';
import { settingsRoutes } from './settings-routes.js';
import { subjectRoutes } from './subject-routes.js';
import { sendError } from './wire-format.js';
import { fromSchemaRegistryError } from '../errors.js';
import { wireApi, WireRoutes, type WireApi } from '../routing/wire-api.js';

/** Where the registry is mounted: a cluster's `schema_registry_url` is `{base_url}/streaming/<id>/schema-registry`. */
export const SCHEMA_REGISTRY_PATH = '/streaming/:clusterId/schema-registry';

export interface SchemaRegistryApiDependencies {
  store: ObjectStore;
  database: DataPlane;
  authenticator: Authenticator;
  logger: Logger;
  now: () => Date;
  /** Largest JSON body accepted (default 1 MiB). */
  bodyLimitBytes?: number;
}

export function schemaRegistryApi(deps: SchemaRegistryApiDependencies): WireApi {
  const { logger } = deps;
  const access = new RegistryAccess(deps);
  const routes = new WireRoutes<ClusterRegistry>();
  subjectRoutes(routes);
  schemaRoutes(routes);
  settingsRoutes(routes);
  compatibilityRoutes(routes);

  // Every body is read as JSON, whatever its content type says: Confluent's clients send
  // `application/vnd.schemaregistry.v1+json`, `application/vnd.schemaregistry+json` or
  // `application/json`, and some send none.
  return wireApi({
    path: SCHEMA_REGISTRY_PATH,
    routes,
    async admit(req, params) {
      const cluster = await access.authorize(req, params.clusterId ?? '');
      return new ClusterRegistry(deps.database, cluster.restId, deps.now);
    },
    notFound: () => new SchemaRegistryError(404, 'HTTP 404 Not Found'),
    errors: {
      refusal: (error) => (error instanceof SchemaRegistryError ? fromSchemaRegistryError(error) : undefined),
      render: sendError,
      internal: () =>
        fromSchemaRegistryError(new SchemaRegistryError(50001, 'Error in the backend data store')),
      logger,
      failure: 'schema registry request failed',
      limitBytes: deps.bodyLimitBytes ?? 1024 ** 2,
    },
  });
}
