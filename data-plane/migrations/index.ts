import type { Kysely } from 'kysely';
import * as jobRuns from './0001_job_runs.js';
import * as accounts from './0002_accounts.js';
import * as oauth from './0003_oauth.js';
import * as vpc from './0004_vpc.js';
import * as vault from './0005_vault.js';
import * as vaultAuthRoles from './0006_vault_auth_roles.js';
import * as integrations from './0007_integrations.js';
import * as integrationEvents from './0008_integration_events.js';
import * as integrationVerification from './0009_integration_verification.js';
import * as organizationTeams from './0010_organization_teams.js';
import * as dataServices from './0011_data_services.js';
import * as usageAggregates from './0012_usage_aggregates.js';
import * as meterEvents from './0013_meter_events.js';
import * as platformEvents from './0014_platform_events.js';
import * as gcReports from './0015_gc_reports.js';
import * as stacks from './0016_stacks.js';
import * as streaming from './0017_streaming.js';
import * as schemaRegistry from './0018_schema_registry.js';
import * as connect from './0019_connect.js';
import * as connectSourceOffsets from './0020_connect_source_offsets.js';
import * as connectObservations from './0021_connect_observations.js';
import * as credentialEpoch from './0022_credential_epoch.js';
import * as profileEpoch from './0023_profile_epoch.js';
import * as rateLimitCounts from './0024_rate_limit_counts.js';

/** One schema change. Names sort in the order they apply; a released migration never changes. */
export interface DataPlaneMigration {
  name: string;
  up(db: Kysely<unknown>): Promise<void>;
}

/** Every data-plane migration, oldest first. Append new ones; never reorder, rename or remove. */
export const MIGRATIONS: readonly DataPlaneMigration[] = [
  { name: '0001_job_runs', up: jobRuns.up },
  { name: '0002_accounts', up: accounts.up },
  { name: '0003_oauth', up: oauth.up },
  { name: '0004_vpc', up: vpc.up },
  { name: '0005_vault', up: vault.up },
  { name: '0006_vault_auth_roles', up: vaultAuthRoles.up },
  { name: '0007_integrations', up: integrations.up },
  { name: '0008_integration_events', up: integrationEvents.up },
  { name: '0009_integration_verification', up: integrationVerification.up },
  { name: '0010_organization_teams', up: organizationTeams.up },
  { name: '0011_data_services', up: dataServices.up },
  { name: '0012_usage_aggregates', up: usageAggregates.up },
  { name: '0013_meter_events', up: meterEvents.up },
  { name: '0014_platform_events', up: platformEvents.up },
  { name: '0015_gc_reports', up: gcReports.up },
  { name: '0016_stacks', up: stacks.up },
  { name: '0017_streaming', up: streaming.up },
  { name: '0018_schema_registry', up: schemaRegistry.up },
  { name: '0019_connect', up: connect.up },
  { name: '0020_connect_source_offsets', up: connectSourceOffsets.up },
  { name: '0021_connect_observations', up: connectObservations.up },
  { name: '0022_credential_epoch', up: credentialEpoch.up },
  { name: '0023_profile_epoch', up: profileEpoch.up },
  { name: '0024_rate_limit_counts', up: rateLimitCounts.up },
];
