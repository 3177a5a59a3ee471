/** The Integration kind: its controller, and the checks the facade runs before it writes one. */
export { INTEGRATION_CREDENTIALS_FINALIZER, integrationController } from './integration-controller.js';
export { configurationProblems, credentialProblems } from './validation.js';
export type { IntegrationProblem } from './validation.js';
