/**
 * What each integration type accepts: its configuration keys and values, and its credential
 * keys. Pure checks, so the facade can answer 422 (configuration) and 400 (credentials) before
 * anything is stored.
 */
import type { IntegrationType } from '../../crds/integration.js';
import { PROVIDERS } from '../../integrations/providers/index.js';

/** One thing wrong with a request, naming the field. */
export interface IntegrationProblem {
  field: string;
  message: string;
}

/** Problems with a configuration for `type` (422); `prefix` names where it sits in the body. */
export function configurationProblems(
  type: IntegrationType,
  configuration: Record<string, unknown>,
  prefix = 'configuration',
): IntegrationProblem[] {
  const { configuration: known, requiredConfiguration } = PROVIDERS[type].settings;
  const problems: IntegrationProblem[] = [];
  for (const [key, value] of Object.entries(configuration)) {
    const field = prefix === '' ? key : `${prefix}.${key}`;
    const check = known[key];
    if (check === undefined) {
      problems.push({
        field,
        message: `${field} is not a ${type} setting; expected ${Object.keys(known).join(', ')}`,
      });
      continue;
    }
    const message = check(value, field);
    if (message !== undefined) problems.push({ field, message });
  }
  for (const key of requiredConfiguration) {
    const field = prefix === '' ? key : `${prefix}.${key}`;
    if (!(key in configuration)) problems.push({ field, message: `${field} is required for ${type}` });
  }
  return problems;
}

/** Problems with generic-create credentials for `type` (400). */
export function credentialProblems(
  type: IntegrationType,
  credentials: Record<string, unknown>,
): IntegrationProblem[] {
  const { required, optional, check } = PROVIDERS[type].settings.credentials;
  const problems: IntegrationProblem[] = [];
  for (const key of Object.keys(credentials)) {
    if (![...required, ...optional].includes(key)) {
      problems.push({
        field: `credentials.${key}`,
        message: `credentials.${key} is not a ${type} credential; expected ${[...required, ...optional].join(', ')}`,
      });
    } else if (typeof credentials[key] !== 'string' || (credentials[key] as string).trim() === '') {
      problems.push({
        field: `credentials.${key}`,
        message: `credentials.${key} must be a non-empty string`,
      });
    }
  }
  for (const key of required) {
    if (!(key in credentials))
      problems.push({ field: `credentials.${key}`, message: `credentials.${key} is required` });
  }
  const problem = check?.(credentials);
  if (problem) problems.push(problem);
  return problems;
}
