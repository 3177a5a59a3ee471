/**
 * `/api/v1/usage`: the caller's organization's usage, from the hourly records the usage
 * aggregation job writes (the running hour included, provisionally), and what it costs.
 */
import type { UsageConfig } from '../../../config/usage.js';
import {
  lineItems,
  meterTotals,
  monthOf,
  parsePeriod,
  shownQuantity,
  totalCents,
  type Period,
} from '../../../jobs/prices.js';
import { usageOfPeriod, type ResourceUsage } from '../../../jobs/usage-records.js';
import { unprocessable } from '../../errors.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';
import { tenantNamespace } from '../../routing/tenancy.js';

/** What the usage routes need beyond the core services: the prices, checked at start-up. */
export interface UsageRouteServices {
  usageConfig: UsageConfig;
}

const BASE = { area: 'usage', auth: 'authenticated', tags: ['usage'], scopes: ['usage:read'] } as const;

const PERIOD = {
  type: 'object',
  properties: {
    start: { type: 'string', format: 'date-time' },
    end: { type: 'string', format: 'date-time' },
  },
} as const satisfies JsonSchema;

const USAGE_BODY = {
  type: 'object',
  properties: {
    period: PERIOD,
    meters: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          meter: { type: 'string', examples: ['database.storage_gb_hours'] },
          unit: { type: 'string', examples: ['GB-hour'] },
          quantity: { type: 'number' },
          included: { type: 'number', description: 'What the prices include (streaming storage of a tier)' },
          billable: { type: 'number' },
        },
      },
    },
    updated_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const satisfies JsonSchema;

const RESOURCE_USAGE_BODY = {
  type: 'object',
  properties: {
    resource_id: { type: 'string' },
    resource_type: { type: 'string' },
    name: { type: 'string' },
    meters: {
      type: 'array',
      items: {
        type: 'object',
        properties: { meter: { type: 'string' }, unit: { type: 'string' }, quantity: { type: 'number' } },
      },
    },
  },
} as const satisfies JsonSchema;

const COSTS_BODY = {
  type: 'object',
  properties: {
    period: PERIOD,
    currency: { type: 'string', const: 'USD' },
    line_items: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          resource_type: { type: 'string' },
          resource_id: { type: 'string' },
          description: { type: 'string' },
          meter: { type: 'string' },
          quantity: { type: 'number', description: 'The billable quantity, to a thousandth' },
          unit: { type: 'string' },
          unit_price_cents: {
            type: 'number',
            description: 'For display; the amount is computed from the exact price and rounded once',
          },
          amount_cents: { type: 'integer' },
        },
      },
    },
    subtotal_cents: { type: 'integer' },
    total_cents: { type: 'integer', description: 'The sum of the line items' },
  },
} as const satisfies JsonSchema;

function periodBody(period: Period): { start: string; end: string } {
  return { start: period.start.toISOString(), end: period.end.toISOString() };
}

interface ResourceTypeQuery {
  query: { resource_type: string };
}

interface PeriodQuery {
  query: { period: string };
}

/** The resources of a period, each with its meters, in resource id order. */
function byResource(usage: readonly ResourceUsage[]) {
  const resources = new Map<
    string,
    {
      resource_id: string;
      resource_type: string;
      name: string;
      meters: { meter: string; unit: string; quantity: number }[];
    }
  >();
  for (const entry of usage) {
    let resource = resources.get(entry.resourceId);
    if (!resource) {
      resource = {
        resource_id: entry.resourceId,
        resource_type: entry.resourceType,
        name: entry.resourceName,
        meters: [],
      };
      resources.set(entry.resourceId, resource);
    }
    resource.meters.push({ meter: entry.meter, unit: entry.unit, quantity: shownQuantity(entry.quantity) });
  }
  return [...resources.values()];
}

async function getUsage({
  principal,
  database,
  now,
  usageConfig,
}: AuthenticatedContext<Record<never, never>, UsageRouteServices>) {
  const period = monthOf(now());
  const usage = await usageOfPeriod(database, tenantNamespace(principal), periodBody(period));
  return {
    data: {
      period: periodBody(period),
      meters: meterTotals(usage.resources, usageConfig.prices),
      updated_at: usage.updatedAt,
    },
  };
}

async function getUsagePerResource({
  principal,
  database,
  now,
  query,
}: AuthenticatedContext<ResourceTypeQuery, UsageRouteServices>) {
  const usage = await usageOfPeriod(database, tenantNamespace(principal), periodBody(monthOf(now())));
  return {
    data: byResource(usage.resources.filter((entry) => entry.resourceType === query.resource_type)),
  };
}

async function getUsageCosts({
  principal,
  database,
  now,
  query,
  usageConfig,
}: AuthenticatedContext<PeriodQuery, UsageRouteServices>) {
  const period = parsePeriod(query.period, now());
  if (!period) {
    throw unprocessable(
      `period: unknown period ${JSON.stringify(query.period)}; use current, previous or YYYY-MM`,
      { details: { field: 'period' } },
    );
  }
  const usage = await usageOfPeriod(database, tenantNamespace(principal), periodBody(period));
  const items = lineItems(usage.resources, usageConfig.prices, period);
  const subtotal = totalCents(items);
  return {
    data: {
      period: periodBody(period),
      currency: 'USD',
      line_items: items,
      subtotal_cents: subtotal,
      total_cents: subtotal,
    },
  };
}

export const usageRoutes: RouteModule<UsageRouteServices> = {
  area: 'usage',
  routes: [
    defineRoute<Record<never, never>, UsageRouteServices>({
      ...BASE,
      method: 'get',
      path: '/api/v1/usage',
      summary: "The organization's usage this month, per meter",
      description: 'Aggregated hours, the running one included provisionally until the next hourly run.',
      responses: { 200: { description: 'Usage of the current period', schema: USAGE_BODY } },
      handler: getUsage,
    }),
    defineRoute<ResourceTypeQuery, UsageRouteServices>({
      ...BASE,
      method: 'get',
      path: '/api/v1/usage/databases',
      summary: "This month's usage per resource",
      description: 'Databases by default; `resource_type` (`nfs_share`, `backup`, …) shows another family.',
      request: {
        query: {
          type: 'object',
          properties: {
            resource_type: { type: 'string', minLength: 1, maxLength: 64, default: 'database' },
          },
        },
      },
      responses: {
        200: { description: 'Usage per resource', schema: { type: 'array', items: RESOURCE_USAGE_BODY } },
      },
      handler: getUsagePerResource,
    }),
    defineRoute<PeriodQuery, UsageRouteServices>({
      ...BASE,
      method: 'get',
      path: '/api/v1/usage/costs',
      summary: "What a month's usage costs, per resource and meter",
      description:
        'Amounts are integer cents, each line item rounded once (half up); the total is the sum of the line items.',
      request: {
        query: {
          type: 'object',
          properties: {
            period: {
              type: 'string',
              maxLength: 32,
              default: 'current',
              description: '`current`, `previous` or a month `YYYY-MM`',
            },
          },
        },
      },
      responses: {
        200: { description: 'Costs of the period', schema: COSTS_BODY },
        422: { description: 'An unknown period, or a month that does not exist' },
      },
      handler: getUsageCosts,
    }),
  ],
};
