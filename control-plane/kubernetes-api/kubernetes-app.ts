import express from 'express';
import { httpAccessLog } from '../../observability/http-access-log.js';
import { kubernetesApi, type KubernetesApiDependencies } from './kubernetes-api.js';

/**
 * The embedded Kubernetes API as an app of its own, served at the root of its TLS port so that a
 * kubeconfig names a plain `https://host:port` server like any cluster's.
 */
export function kubernetesApiApp(deps: KubernetesApiDependencies): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const observe = httpAccessLog(deps.logger, { routeOf: (req) => (req.url ?? '').split('?', 1)[0]! });
  app.use((req, res, next) => {
    observe(req, res);
    next();
  }, kubernetesApi(deps));
  return app;
}
