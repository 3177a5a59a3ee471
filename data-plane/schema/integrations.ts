import type { Flag } from './columns.js';

/** Integrations: sealed credentials, test and sync runs, events and their deliveries. */
export interface IntegrationsTables {
  integration_credentials: IntegrationCredentialsTable;
  integration_tests: IntegrationTestsTable;
  integration_syncs: IntegrationSyncsTable;
  integration_events: IntegrationEventsTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  integration_signing_secrets: IntegrationSigningSecretsTable;
}

/** One integration's credentials, sealed as a JSON object (migration 0007_integrations). */
export interface IntegrationCredentialsTable {
  id: string;
  integration_id: string;
  namespace: string;
  type: string;
  /** The provider account the credentials belong to; unique per organization and type. */
  account_key: string | null;
  /** A sealed box (security/sealed-box.ts) bound to `integration-credentials:<integration_id>`. */
  sealed_credentials: string;
  created_at: string;
  updated_at: string;
  /**
   * The generation of the Integration whose credentials the API verified before creating it, and
   * when (migration 0009); null for credentials stored unverified.
   */
  verified_generation: number | null;
  verified_at: string | null;
}

export type IntegrationRunStatus = 'in-progress' | 'passed' | 'failed';

/** One run of POST /integrations/:id/test. */
export interface IntegrationTestsTable {
  id: string;
  integration_id: string;
  namespace: string;
  status: IntegrationRunStatus;
  /** JSON `{connection, authentication, permissions, latency_ms}`; null while in progress. */
  result: string | null;
  /** JSON array of messages. */
  errors: string;
  started_at: string;
  completed_at: string | null;
}

export type IntegrationSyncStatus = 'in-progress' | 'success' | 'failed';

/** One run of POST /integrations/:id/codehost/sync. */
export interface IntegrationSyncsTable {
  id: string;
  integration_id: string;
  namespace: string;
  status: IntegrationSyncStatus;
  /** JSON array of `owner/repo` the sync found. */
  repositories: string;
  full_sync: Flag;
  errors: string;
  started_at: string;
  completed_at: string | null;
}

/**
 * `sending` is a claimed event under a lease; `failed` waits for `next_attempt_at`; `dead` has spent
 * its attempts (migration 0008_integration_events).
 */
export type IntegrationEventStatus = 'pending' | 'sending' | 'success' | 'failed' | 'dead';

/** One platform event bound for one integration. */
export interface IntegrationEventsTable {
  id: string;
  organization_id: string;
  integration_id: string;
  event_type: string;
  /** The id of what the event is about; the pager's dedup key. */
  subject: string;
  status: IntegrationEventStatus;
  /** JSON object. */
  payload: string;
  attempts: number;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
  sent_at: string | null;
  response_status: number | null;
  last_error: string | null;
}

/** One delivery of an event, outbound to a provider or inbound from the code host. */
export interface WebhookDeliveryAttemptsTable {
  id: string;
  webhook_id: string;
  integration_id: string;
  event: string;
  status: 'success' | 'failed';
  /** 0 when no HTTP answer came back. */
  status_code: number;
  duration_ms: number;
  timestamp: string;
  /** Unique: an inbound delivery id seen twice is a replay. */
  delivery_id: string;
}

/** The secret outbound events are signed with, sealed, one per integration. */
export interface IntegrationSigningSecretsTable {
  integration_id: string;
  sealed_secret: string;
  created_at: string;
}
