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
 * The provider types the compiler knows: each provider module adds its own key
 * (`declare module`), so adding a provider touches no list here.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the provider modules
export interface IntegrationTypes {}

export type IntegrationType = keyof IntegrationTypes;

/**
 * The provider types the platform runs, in the order they were registered: the CRD's enum of
 * `spec.type`. The provider list (`integrations/providers`) registers each type as it loads.
 */
const REGISTERED_TYPES: IntegrationType[] = [];

export function registerIntegrationType(type: IntegrationType): void {
  if (REGISTERED_TYPES.includes(type)) throw new Error(`integration type ${type} is registered twice`);
  REGISTERED_TYPES.push(type);
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
  // Before the provider list has loaded (a tool that reads the kinds alone), the generated enum stands.
  specEnums: (): Record<string, readonly string[]> =>
    REGISTERED_TYPES.length === 0 ? {} : { type: REGISTERED_TYPES },
};
