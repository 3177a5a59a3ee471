/**
 * Every route area of the REST API, in one list. Each module declares the services its handlers
 * take from their context beyond the core ones; `RouteAreaServices` is all of them together, which
 * the composition root must hand `createApp`.
 */
import { accountsRoutes } from './accounts/accounts.js';
import { apiKeysRoutes } from './accounts/api-keys.js';
import { oauthRoutes } from './accounts/oauth.js';
import { organizationsRoutes } from './accounts/organizations.js';
import { backupRoutes } from './data-services/backups.js';
import { databaseRoutes } from './data-services/databases.js';
import { nfsShareRoutes } from './data-services/nfs-shares.js';
import { quotaRoutes } from './data-services/quotas.js';
import { eventTicketRoutes } from './events/tickets.js';
import { gcReportRoutes } from './gc/reports.js';
import { integrationEventRoutes } from './integrations/events.js';
import { integrationRoutes } from './integrations/integrations.js';
import { integrationWebhookRoutes } from './integrations/webhooks.js';
import { stackArtifactRoutes } from './stacks/artifacts.js';
import { stackExecutionRoutes } from './stacks/executions.js';
import { stackRoutes } from './stacks/stacks.js';
import { streamingClusterRoutes } from './streaming/clusters.js';
import { consumerGroupRoutes } from './streaming/consumer-groups.js';
import { streamingMessageRoutes } from './streaming/messages.js';
import { streamingTopicRoutes } from './streaming/topics.js';
import { streamingUserRoutes } from './streaming/users.js';
import { usageRoutes } from './usage/usage.js';
import { vaultRoutes } from './vault/clusters.js';
import { vpcRoutes } from './vpc/vpcs.js';
import type { RouteModule } from '../routing/route.js';

export const ROUTE_AREAS = [
  accountsRoutes,
  apiKeysRoutes,
  organizationsRoutes,
  oauthRoutes,
  vpcRoutes,
  vaultRoutes,
  integrationRoutes,
  integrationEventRoutes,
  integrationWebhookRoutes,
  databaseRoutes,
  nfsShareRoutes,
  backupRoutes,
  quotaRoutes,
  stackRoutes,
  stackExecutionRoutes,
  stackArtifactRoutes,
  streamingClusterRoutes,
  streamingTopicRoutes,
  streamingMessageRoutes,
  streamingUserRoutes,
  consumerGroupRoutes,
  usageRoutes,
  eventTicketRoutes,
  gcReportRoutes,
] as const;

type ServicesOf<M> = M extends RouteModule<infer A> ? A : never;
type Intersection<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void
  ? I
  : never;

/** Every service some route area declares, by name. */
export type RouteAreaServices = Intersection<ServicesOf<(typeof ROUTE_AREAS)[number]>>;
