/**
 * The data-plane tables as Kysely sees them, one file per area in schema/.
 *
 * Portable representations, identical on SQLite and PostgreSQL:
 * - timestamps are ISO-8601 UTC text from `Date.prototype.toISOString()`
 *   (`2024-05-01T03:00:00.000Z`). The fixed width makes text order chronological order, so
 *   range filters and `order by` work the same in both dialects, and rows read back as the same
 *   string everywhere (a `timestamptz` would come back as a `Date` from pg and a string from SQLite).
 * - JSON is text, written with `JSON.stringify` and read with `JSON.parse`.
 */
import type { AccountsTables } from './schema/accounts.js';
import type { BillingTables } from './schema/billing.js';
import type { ConnectTables } from './schema/connect.js';
import type { PlatformEventsTables } from './schema/events.js';
import type { DataServicesTables } from './schema/data-services.js';
import type { GcTables } from './schema/gc.js';
import type { SchemaRegistryTables } from './schema/schema-registry.js';
import type { StacksTables } from './schema/stacks.js';
import type { StreamingTables } from './schema/streaming.js';
import type { UsageTables } from './schema/usage.js';
import type { IntegrationsTables } from './schema/integrations.js';
import type { JobsTables } from './schema/jobs.js';
import type { VaultTables } from './schema/vault.js';
import type { VpcTables } from './schema/vpc.js';

export type * from './schema/accounts.js';
export type * from './schema/billing.js';
export type * from './schema/connect.js';
export type * from './schema/events.js';
export type * from './schema/columns.js';
export type * from './schema/data-services.js';
export type * from './schema/gc.js';
export type * from './schema/schema-registry.js';
export type * from './schema/stacks.js';
export type * from './schema/streaming.js';
export type * from './schema/usage.js';
export type * from './schema/integrations.js';
export type * from './schema/jobs.js';
export type * from './schema/vault.js';
export type * from './schema/vpc.js';

export interface DataPlaneSchema
  extends
    JobsTables,
    AccountsTables,
    VaultTables,
    VpcTables,
    IntegrationsTables,
    DataServicesTables,
    UsageTables,
    BillingTables,
    PlatformEventsTables,
    GcTables,
    StacksTables,
    StreamingTables,
    SchemaRegistryTables,
    ConnectTables {}
