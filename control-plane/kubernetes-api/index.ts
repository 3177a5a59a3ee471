/**
 * The embedded Kubernetes API: the app that serves the object store to kubectl, helm and
 * client libraries, the credentials it accepts, and what a client needs to reach it.
 */
export { kubernetesApiApp } from './kubernetes-app.js';
export type { KubernetesApiDependencies } from './kubernetes-api.js';
export {
  STARTUP_TOKEN_USER,
  combineKubeAuthenticators,
  startupTokenAuthenticator,
  type KubeAuthenticator,
  type KubeIdentity,
} from './authentication.js';
export { KUBECONFIG_CONTEXT, generateStartupToken, writeKubeconfig } from './kubeconfig.js';
export { loadServingCertificate, type ServingCertificate } from './serving-certificate.js';
