/**
 * The connector runtime of every streaming cluster, as the Kafka Connect REST API: mounted at
 * `/streaming/:clusterId/connect`, its bodies and errors (`{error_code, message}`) are Kafka
 * Connect's, so its tools work unchanged. Who may use it is who may use the cluster's schema
 * registry: a user of the cluster with HTTP Basic, or a platform API key or a member's access
 * token of its organization.
 */
import type { Authenticator } from '../../accounts/principal.js';
import { ConnectError, configOf, type ConnectService } from '../../connect/index.js';
import type { ObjectStore } from '../../control-plane/types.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import type { Logger } from '../../observability/logger.js';
import { SchemaRegistryError } from '../../schema-registry/index.js';
import { RegistryAccess } from '../schema-registry/registry-access.js';
import { connectorRoutes } from './connector-routes.js';
import { offsetRoutes } from './offset-routes.js';
import { param, send, sendError, type ConnectLocals } from './wire-format.js';
import { fromConnectError } from '../errors.js';
import { wireApi, WireRoutes, type WireApi } from '../routing/wire-api.js';

/** Where the runtime is mounted: a cluster's `connect_url` is `{base_url}/streaming/<id>/connect`. */
export const CONNECT_PATH = '/streaming/:clusterId/connect';

/** The Kafka Connect version whose REST API this one answers as. */
const CONNECT_VERSION = '3.7.0';

export interface ConnectApiDependencies {
  connect: ConnectService;
  store: ObjectStore;
  database: DataPlane;
  authenticator: Authenticator;
  logger: Logger;
  /** Largest JSON body accepted (default 1 MiB). */
  bodyLimitBytes?: number;
}

export function connectApi(deps: ConnectApiDependencies): WireApi {
  const { connect, logger } = deps;
  const access = new RegistryAccess(deps);
  const routes = new WireRoutes<ConnectLocals>();
  routes.get('/', (req, res) => {
    send(res, 200, {
      version: CONNECT_VERSION,
      commit: 'cloudplane',
      kafka_cluster_id: param(req, 'clusterId'),
    });
  });
  routes.get('/connector-plugins', (_req, res) => {
    send(res, 200, connect.plugins());
  });
  routes.put('/connector-plugins/:class/config/validate', (req, res) => {
    send(res, 200, connect.validate(param(req, 'class'), configOf(req.body)));
  });
  connectorRoutes(routes);
  offsetRoutes(routes);

  return wireApi({
    path: CONNECT_PATH,
    routes,
    async admit(req, params) {
      try {
        const cluster = await access.authorize(req, params.clusterId ?? '');
        return { connect, cluster: { restId: cluster.restId, namespace: cluster.namespace } };
      } catch (error) {
        if (error instanceof SchemaRegistryError) throw new ConnectError(error.status, error.message);
        throw error;
      }
    },
    notFound: () => new ConnectError(404, 'HTTP 404 Not Found'),
    errors: {
      refusal: (error) => (error instanceof ConnectError ? fromConnectError(error) : undefined),
      render: sendError,
      // Kafka Connect answers an unexpected failure with its message.
      internal: (error) =>
        fromConnectError(new ConnectError(500, (error as Error).message ?? 'internal error')),
      logger,
      failure: 'connect request failed',
      limitBytes: deps.bodyLimitBytes ?? 1024 ** 2,
    },
  });
}
