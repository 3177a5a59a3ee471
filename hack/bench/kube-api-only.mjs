// The embedded store behind the embedded Kubernetes API and nothing else: no controllers, no
// REST facade. `bench:scale` runs it with BENCH_RECONCILE=off to show what the apply costs
// when no reconcile work shares the process. Reads CLOUDPLANE_DATA_DIR and writes the kubeconfig
// there, as `serve` does.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const load = (module) => import(path.join(root, 'dist', module));

const { startServer } = await load('apiserver/server.js');
const { KUBERNETES_API_KINDS } = await load('control-plane/built-in-kinds.js');
const { openEmbeddedStore } = await load('control-plane/embedded-store/index.js');
const api = await load('control-plane/kubernetes-api/index.js');
const { loadKinds } = await load('crds/registry.js');
const { createLogger } = await load('observability/logger.js');

const dataDir = process.env.CLOUDPLANE_DATA_DIR;
if (!dataDir) throw new Error('CLOUDPLANE_DATA_DIR must name the data directory');
const logger = createLogger(process.env.CLOUDPLANE_LOG_LEVEL ?? 'warn');
const store = openEmbeddedStore({
  path: path.join(dataDir, 'control-plane.db'),
  kinds: [...loadKinds(), ...KUBERNETES_API_KINDS],
  logger,
});
const token = api.generateStartupToken();
const certificate = api.loadServingCertificate(dataDir, ['127.0.0.1', 'localhost']);
const server = await startServer(
  api.kubernetesApiApp({ store, logger, authenticate: api.startupTokenAuthenticator(token) }),
  { host: '127.0.0.1', port: 0, tls: certificate },
);
api.writeKubeconfig(path.join(dataDir, 'kubeconfig'), {
  server: server.url,
  token,
  certificateAuthority: certificate.cert,
});

const stop = async () => {
  await server.close();
  await store.close();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
