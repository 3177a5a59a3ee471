/**
 * `/v1/gc/reports`: what each garbage collection run found, deleted or would delete. The reports
 * span every organization, so only the platform's operators (`CLOUDPLANE_PLATFORM_ADMINS`) read
 * them. Anyone else is refused with 403, not 404: the endpoint is documented, so hiding it would
 * tell nothing a caller does not know, while a 403 says plainly that it is a matter of permission.
 */
import type { Principal } from '../../../accounts/principal.js';
import type { DataPlane } from '../../../data-plane/data-plane.js';
import { findGcReport, listGcReports, type GcReport } from '../../../jobs/garbage/reports.js';
import { forbidden, notFound } from '../../errors.js';
import type { JsonSchema } from '../../routing/json-schema.js';
import { PAGE_QUERY_PROPERTIES, pageWindow, type PageQuery } from '../../routing/pagination.js';
import { defineRoute, type RouteModule, type AuthenticatedContext } from '../../routing/route.js';

/** What the report routes need beyond the core services. */
export interface GcReportRouteServices {
  /** Lower-case e-mail addresses of the platform's operators. */
  platformAdmins: readonly string[];
}

const BASE = { area: 'resources', auth: 'authenticated', tags: ['garbage collection'], scopes: [] } as const;

const ITEM_BODY = {
  type: 'object',
  properties: {
    collector: { type: 'string', examples: ['quota_claims'] },
    resource: { type: 'string', examples: ['org-acme/db_0a1b2c3d4e5f'] },
    age_days: { type: 'integer' },
    reason: { type: 'string' },
    action: { type: 'string', enum: ['would delete', 'deleted', 'protected'] },
  },
} as const satisfies JsonSchema;

const REPORT_PROPERTIES = {
  id: { type: 'string' },
  started_at: { type: 'string', format: 'date-time' },
  finished_at: { type: 'string', format: 'date-time' },
  dry_run: { type: 'boolean' },
  retention_days: { type: 'integer' },
  cutoff: { type: 'string', format: 'date-time' },
  skipped: {
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Collectors that did not run, and why (`no control plane`)',
  },
} as const satisfies Record<string, JsonSchema>;

const REPORT_SUMMARY_BODY = {
  type: 'object',
  properties: {
    ...REPORT_PROPERTIES,
    items: { type: 'integer', description: 'How many items the report holds' },
  },
} as const satisfies JsonSchema;

const REPORT_BODY = {
  type: 'object',
  properties: { ...REPORT_PROPERTIES, items: { type: 'array', items: ITEM_BODY } },
} as const satisfies JsonSchema;

function describe(report: GcReport) {
  return {
    id: report.id,
    started_at: report.startedAt,
    finished_at: report.finishedAt,
    dry_run: report.dryRun,
    retention_days: report.retentionDays,
    cutoff: report.cutoff,
    skipped: report.skipped,
  };
}

async function requirePlatformAdmin(
  database: DataPlane,
  principal: Principal,
  platformAdmins: readonly string[],
): Promise<void> {
  const user =
    principal.userId === undefined
      ? undefined
      : await database.kysely
          .selectFrom('users')
          .select('email')
          .where('id', '=', principal.userId)
          .executeTakeFirst();
  if (user === undefined || !platformAdmins.includes(user.email.toLowerCase()))
    throw forbidden('garbage collection reports are for platform administrators only');
}

async function listCollectionReports({
  query,
  principal,
  database,
  platformAdmins,
}: AuthenticatedContext<{ query: PageQuery }, GcReportRouteServices>) {
  await requirePlatformAdmin(database, principal, platformAdmins);
  const { reports, total } = await listGcReports(database, pageWindow(query));
  return {
    data: reports.map((report) => ({ ...describe(report), items: report.items.length })),
    page: { total, page: query.page, perPage: query.per_page },
  };
}

async function getGcReport({
  params,
  principal,
  database,
  platformAdmins,
}: AuthenticatedContext<{ params: { id: string } }, GcReportRouteServices>) {
  await requirePlatformAdmin(database, principal, platformAdmins);
  const report = await findGcReport(database, params.id);
  if (report === undefined) throw notFound(`garbage collection report ${params.id} not found`);
  return { data: { ...describe(report), items: report.items } };
}

export const gcReportRoutes: RouteModule<GcReportRouteServices> = {
  area: 'resources',
  routes: [
    defineRoute<{ query: PageQuery }, GcReportRouteServices>({
      ...BASE,
      method: 'get',
      path: '/v1/gc/reports',
      summary: 'Garbage collection reports, newest first',
      request: { query: { type: 'object', properties: { ...PAGE_QUERY_PROPERTIES } } },
      responses: {
        200: {
          description: 'Reports without their items',
          paginated: true,
          schema: { type: 'array', items: REPORT_SUMMARY_BODY },
        },
        403: { description: 'The caller is not a platform administrator' },
      },
      handler: listCollectionReports,
    }),
    defineRoute<{ params: { id: string } }, GcReportRouteServices>({
      ...BASE,
      method: 'get',
      path: '/v1/gc/reports/:id',
      summary: 'One garbage collection report with its items',
      request: {
        params: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } },
      },
      responses: {
        200: { description: 'The report', schema: REPORT_BODY },
        403: { description: 'The caller is not a platform administrator' },
        404: { description: 'No such report' },
      },
      handler: getGcReport,
    }),
  ],
};
