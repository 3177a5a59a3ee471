/**
 * `/api/v1/integrations/:id/events`: the events forwarded to an integration, and redelivery of
 * one that was given up. The delivery worker does the sending; these routes only read and requeue.
 */
import { redeliverEvent, findEvent, type EventRow } from '../../../integrations/events/event-records.js';
import type { ObjectStore } from '../../../control-plane/types.js';
import type { Integration } from '../../../crds/integration.js';
import type { IntegrationEventStatus } from '../../../data-plane/schema.js';
import { conflict, notFound } from '../../errors.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { limitOffsetProperties } from '../../routing/pagination.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import type { Principal } from '../../../accounts/principal.js';
import { findInOrganization } from '../../routing/tenancy.js';
import { INTEGRATIONS } from './integration-resources.js';

const REST_STATUSES = ['success', 'failed', 'pending'] as const;
type RestEventStatus = (typeof REST_STATUSES)[number];

/** A claimed event is still pending to the caller; a dead one has failed for good. */
const STORED_STATUSES: Record<RestEventStatus, IntegrationEventStatus[]> = {
  pending: ['pending', 'sending'],
  failed: ['failed', 'dead'],
  success: ['success'],
};

function restStatus(status: IntegrationEventStatus): RestEventStatus {
  if (status === 'sending') return 'pending';
  if (status === 'dead') return 'failed';
  return status;
}

export const INTEGRATION_PARAMS = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 253 } },
} as const;

/**
 * The caller's integration; 404 when it is not in their organization (whatever the id looks
 * like, so an id of another tenant and a malformed one answer alike).
 */
export async function readTenantIntegration(
  store: ObjectStore,
  principal: Principal,
  id: string,
): Promise<Integration> {
  return findInOrganization(store, principal, { ...INTEGRATIONS, malformedIsMissing: true }, id);
}

const EVENT = {
  type: 'object',
  properties: {
    id: { type: 'string', examples: ['event-8b0f3f4e-3a0c-4a53-9d49-5b8a3f2b9d10'] },
    event_type: { type: 'string', examples: ['vpc.created'] },
    status: { type: 'string', enum: REST_STATUSES },
    payload: { type: 'object' },
    sent_at: { type: ['string', 'null'], format: 'date-time' },
    response_status: { type: ['integer', 'null'] },
  },
} as const satisfies JsonSchema;

function toRest(row: EventRow) {
  return {
    id: row.id,
    event_type: row.event_type,
    status: restStatus(row.status),
    payload: JSON.parse(row.payload) as unknown,
    sent_at: row.sent_at,
    response_status: row.response_status,
  };
}

interface ListQuery {
  event_type?: string;
  status?: RestEventStatus;
  limit: number;
  offset: number;
}

async function listIntegrationEvents({
  params,
  query,
  principal,
  store,
  database,
}: AuthenticatedContext<{ params: { id: string }; query: ListQuery }>) {
  await readTenantIntegration(store, principal, params.id);
  let select = database.kysely
    .selectFrom('integration_events')
    .selectAll()
    .where('integration_id', '=', params.id);
  if (query.event_type !== undefined) select = select.where('event_type', '=', query.event_type);
  if (query.status !== undefined) select = select.where('status', 'in', STORED_STATUSES[query.status]);
  const rows = await select
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(query.limit)
    .offset(query.offset)
    .execute();
  return { data: rows.map(toRest) };
}

async function redeliverIntegrationEvent({
  params,
  principal,
  store,
  database,
  now,
}: AuthenticatedContext<{ params: { id: string; event_id: string } }>) {
  await readTenantIntegration(store, principal, params.id);
  const requeued = await redeliverEvent(database, params.id, params.event_id, now());
  const row = await findEvent(database, params.id, params.event_id);
  if (!row) throw notFound(`event ${params.event_id} not found`);
  if (!requeued) {
    throw conflict(
      `event ${params.event_id} is ${restStatus(row.status)}; only a failed event can be redelivered`,
    );
  }
  return { status: 202, data: toRest(row) };
}

export const integrationEventRoutes: RouteModule = {
  area: 'integrations',
  routes: [
    defineRoute<{ params: { id: string }; query: ListQuery }>({
      method: 'get',
      path: '/api/v1/integrations/:id/events',
      area: 'integrations',
      auth: 'authenticated',
      scopes: ['integrations:read'],
      summary: 'List the events forwarded to an integration, newest first',
      request: {
        params: INTEGRATION_PARAMS,
        query: {
          type: 'object',
          properties: {
            event_type: {
              type: 'string',
              minLength: 1,
              description: 'Only this event type, e.g. vpc.created',
            },
            status: { type: 'string', enum: REST_STATUSES },
            ...limitOffsetProperties({ defaultLimit: 50, maxLimit: 200 }),
          },
        },
      },
      responses: { 200: { description: 'The events', schema: { type: 'array', items: EVENT } } },
      handler: listIntegrationEvents,
    }),
    defineRoute<{ params: { id: string; event_id: string } }>({
      method: 'post',
      path: '/api/v1/integrations/:id/events/:event_id/redeliver',
      area: 'integrations',
      auth: 'authenticated',
      scopes: ['integrations:write'],
      summary: 'Queue a failed or given-up event for delivery again',
      description: 'The event gets a fresh set of attempts; one that succeeded or is still pending is a 409.',
      request: {
        params: {
          type: 'object',
          required: ['id', 'event_id'],
          properties: { ...INTEGRATION_PARAMS.properties, event_id: { type: 'string', minLength: 1 } },
        },
      },
      responses: {
        202: { description: 'The event, pending again', schema: EVENT },
        404: { description: 'No such integration or event' },
        409: { description: 'The event is not failed' },
      },
      handler: redeliverIntegrationEvent,
    }),
  ],
};
