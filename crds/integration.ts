/**
 * A connection to a third-party provider. The object holds what may be read by anyone who can
 * `kubectl get` it and synced to Git: the type, the display name, the non-secret configuration and
 * the id of the credentials row. The credentials themselves live only in the data plane, sealed.
 */
import type { Condition, KubeObject } from '../control-plane/types.js';
import {
  GROUP,
  READY_MESSAGE_COLUMN,
  READY_REASON_COLUMN,
  VERSION,
  type KindDescriptor,
} from '../control-plane/kind-descriptor.js';

/**
 * The provider types the platform runs, in the order the API lists them: the CRD's enum of
 * `spec.type`. Each provider module (`integrations/providers/<type>.ts`) is typed by this list,
 * so the kinds carry the enum without loading the providers.
 */
export const INTEGRATION_TYPES = ['codehost', 'edgenet', 'monitor', 'pager', 'chat'] as const;

/**
 * The provider types the compiler knows: those of the list, and any a provider registered
 * beyond it adds (`declare module`), as a test does.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the list's keys, and what a registration adds
export interface IntegrationTypes extends Record<(typeof INTEGRATION_TYPES)[number], true> {}

export type IntegrationType = keyof IntegrationTypes;

/** The types of the list, then those registered beyond it. */
const REGISTERED_TYPES: IntegrationType[] = [...INTEGRATION_TYPES];

/** Adds a type beyond the list (a provider registered later); one of the list is there already. */
export function registerIntegrationType(type: IntegrationType): void {
  if (!REGISTERED_TYPES.includes(type)) REGISTERED_TYPES.push(type);
}

export interface IntegrationSpec {
  /** @asType string */
  type: IntegrationType;
  /** The display name, unique per organization. */
  name: string;
  /**
   * The provider settings that are not secret: repositories and events, zones, site and tags,
   * channels, service id. A chat webhook URL carries its own token, so it is a credential.
   */
  configuration?: Record<string, unknown>;
  /** The id of the sealed credentials row in the data plane (`integration_credentials.id`). */
  credentialsRef?: string;
  /** A disabled integration is not verified, tested or sent events: it reports `disconnected`. */
  enabled?: boolean;
}

export type IntegrationPhase = 'pending' | 'connected' | 'disconnected' | 'error' | 'expired';

export interface IntegrationStatus {
  phase?: IntegrationPhase;
  /** @asType integer */
  observedGeneration?: number;
  conditions?: Condition[];
  /** When the provider last answered a verification or a sync. */
  lastSync?: string;
  /** The last failure the provider reported, without any credential. */
  lastError?: string;
  /**
   * Failed verifications and syncs since the integration was created.
   * @asType integer
   */
  errorCount?: number;
  /** The provider account the credentials belong to (an installation, a token id, a site). */
  accountKey?: string;
}

export type Integration = KubeObject<IntegrationSpec, IntegrationStatus>;

export const INTEGRATION: KindDescriptor = {
  group: GROUP,
  version: VERSION,
  kind: 'Integration',
  plural: 'integrations',
  singular: 'integration',
  namespaced: true,
  shortNames: ['intg'],
  categories: ['cloudplane'],
  printerColumns: [
    { name: 'Type', type: 'string', jsonPath: '.spec.type' },
    { name: 'Display Name', type: 'string', jsonPath: '.spec.name' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    READY_REASON_COLUMN,
    { name: 'Last Sync', type: 'date', jsonPath: '.status.lastSync', priority: 1 },
    READY_MESSAGE_COLUMN,
  ],
  typesFile: 'crds/integration.ts',
  specEnums: (): Record<string, readonly string[]> => ({ type: REGISTERED_TYPES }),
};
