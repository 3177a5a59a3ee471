/**
 * How successes are written: `enveloped` is style A (`{data, meta}`), `bare` is style B (the object
 * or array itself).
 */
export type SuccessStyle = 'enveloped' | 'bare';

/**
 * How errors are written: `general` is `{error:{code, message, details}, meta:{request_id}}`,
 * `flat` is the accounts body `{error: "<code>", message, ...extra}`.
 */
export type ErrorStyle = 'general' | 'flat';

export interface AreaConventions {
  /** Path prefixes the area owns; the longest matching prefix across all areas decides. */
  prefixes: readonly string[];
  success: SuccessStyle;
  errors: ErrorStyle;
}

/** The API's areas and the conventions the specification gives each. */
export const API_AREAS = {
  accounts: {
    prefixes: ['/v1/auth', '/v1/organizations', '/v1/invitations'],
    success: 'enveloped',
    errors: 'flat',
  },
  stacks: { prefixes: ['/v1/stacks'], success: 'enveloped', errors: 'general' },
  /** The other `/v1` resource families of the overview (databases, NFS shares, backups, quotas). */
  resources: { prefixes: ['/v1'], success: 'enveloped', errors: 'general' },
  vault: { prefixes: ['/api/v1/vault'], success: 'bare', errors: 'general' },
  vpc: { prefixes: ['/api/v1/vpcs'], success: 'bare', errors: 'general' },
  integrations: { prefixes: ['/api/v1/integrations'], success: 'bare', errors: 'general' },
  usage: { prefixes: ['/api/v1/usage'], success: 'bare', errors: 'general' },
  /** Inbound provider callbacks such as `/webhooks/codehost/<integration_id>`. */
  webhooks: { prefixes: ['/webhooks'], success: 'bare', errors: 'general' },
  operations: { prefixes: ['/health', '/metrics', '/openapi.json'], success: 'bare', errors: 'general' },
} as const satisfies Record<string, AreaConventions>;

export type ApiArea = keyof typeof API_AREAS;

const AREA_NAMES = Object.keys(API_AREAS) as ApiArea[];

function prefixLength(path: string, prefix: string): number {
  return path === prefix || path.startsWith(`${prefix}/`) ? prefix.length : -1;
}

/** The area owning a request path or route template, or `undefined` outside every area. */
export function areaOfPath(path: string): ApiArea | undefined {
  let best: ApiArea | undefined;
  let bestLength = -1;
  for (const area of AREA_NAMES) {
    for (const prefix of API_AREAS[area].prefixes) {
      const length = prefixLength(path, prefix);
      if (length > bestLength) {
        best = area;
        bestLength = length;
      }
    }
  }
  return best;
}

/** Paths outside every area still answer errors in the general style. */
export function errorStyleOfPath(path: string): ErrorStyle {
  const area = areaOfPath(path);
  return area ? API_AREAS[area].errors : 'general';
}
