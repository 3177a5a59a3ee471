/**
 * Deleting an organization. An owner asks (repeating its name); with resources left the answer
 * is a 409 listing them unless the request cascades. The request only marks the organization
 * `deleting_at`: the deletion itself is a level-based worker that every pass looks at what is
 * left and takes the next step — delete every resource of the namespace through its normal
 * finalizers, then the namespace, then the organization's rows — so a restart in the middle
 * simply finishes it. Members left without an organization get a fresh personal one.
 */
import type { DataPlane } from '../data-plane/data-plane.js';
import { EVENT_KIND, NAMESPACE_KIND } from '../control-plane/built-in-kinds.js';
import { isStoreError, type ObjectStore, type ResourceType } from '../control-plane/types.js';
import type { Logger } from '../observability/logger.js';
import { conflicting, invalidInput } from './account-error.js';
import { requireOwner, switchAwayFrom, type Actor } from './members.js';
import { recordAudit } from './organization-audit.js';
import { organizationNamespace } from './organizations.js';

export interface OrganizationDeletionDeps {
  database: DataPlane;
  store: ObjectStore;
  /** Every kind an organization's namespace may hold. */
  kinds: readonly (ResourceType & { kind: string })[];
  logger: Logger;
  now: () => Date;
}

export interface RemainingResource {
  type: ResourceType;
  kind: string;
  name: string;
  deleting: boolean;
}

/** What still lives in the organization's namespace. */
export async function remainingResources(
  deps: Pick<OrganizationDeletionDeps, 'store' | 'kinds'>,
  organizationId: string,
): Promise<RemainingResource[]> {
  const namespace = organizationNamespace(organizationId);
  const remaining: RemainingResource[] = [];
  for (const kind of deps.kinds) {
    const { items } = await deps.store.list(kind, { namespace });
    for (const item of items) {
      remaining.push({
        type: kind,
        kind: kind.kind,
        name: item.metadata.name,
        deleting: !!item.metadata.deletionTimestamp,
      });
    }
  }
  return remaining;
}

/**
 * Marks the organization for deletion after the checks: the caller is an owner, `confirmation`
 * repeats its name, and it is empty unless `cascade`. Asking again while it is under way is fine.
 */
export async function requestOrganizationDeletion(
  deps: OrganizationDeletionDeps,
  request: { organizationId: string; actor: Actor; confirmation: string; cascade: boolean },
): Promise<{ remaining: RemainingResource[] }> {
  const { organizationId, actor } = request;
  requireOwner(actor, 'delete the organization');
  const organization = await deps.database.kysely
    .selectFrom('organizations')
    .select(['name', 'deleting_at'])
    .where('id', '=', organizationId)
    .executeTakeFirstOrThrow();
  if (request.confirmation !== organization.name) {
    throw invalidInput(
      `name must repeat the organization's name, "${organization.name}", to confirm the deletion`,
      {
        code: 'confirmation_mismatch',
        details: { fields: [{ in: 'body', field: 'name', rule: 'confirmation', message: 'does not match' }] },
      },
    );
  }
  const remaining = await remainingResources(deps, organizationId);
  if (remaining.length > 0 && !request.cascade) {
    const listed = remaining.map((resource) => `${resource.kind} ${resource.name}`).join(', ');
    const resources = remaining.map(({ kind, name }) => ({ kind, name }));
    throw conflicting(
      'organization_not_empty',
      `the organization still holds ${listed}; delete them or pass cascade=true`,
      {
        extra: { resources },
        details: { resources },
      },
    );
  }
  if (organization.deleting_at === null) {
    const now = deps.now();
    await deps.database.kysely.transaction().execute(async (trx) => {
      await trx
        .updateTable('organizations')
        .set({ deleting_at: now.toISOString(), deleting_by: actor.userId })
        .where('id', '=', organizationId)
        .execute();
      await recordAudit(
        trx,
        {
          organizationId,
          actorId: actor.userId,
          action: 'deletion_requested',
          subject: organizationId,
          details: { cascade: request.cascade, remaining: remaining.length },
        },
        now,
      );
    });
    deps.logger.info(
      { organizationId, cascade: request.cascade, remaining: remaining.length },
      'organization deletion requested',
    );
  }
  return { remaining };
}

/** The rows of the data plane an organization leaves behind once its resources are gone. */
async function purgeOrganization(deps: OrganizationDeletionDeps, organizationId: string): Promise<void> {
  const namespace = organizationNamespace(organizationId);
  const now = deps.now();
  await deps.database.kysely.transaction().execute(async (trx) => {
    const members = await trx
      .selectFrom('organization_members')
      .select('user_id')
      .where('organization_id', '=', organizationId)
      .execute();
    await trx.deleteFrom('organization_members').where('organization_id', '=', organizationId).execute();
    for (const { user_id } of members) await switchAwayFrom(trx, user_id, organizationId, now);
    await trx.deleteFrom('vpc_tombstones').where('namespace', '=', namespace).execute();
    await trx.deleteFrom('vpc_cidr_claims').where('namespace', '=', namespace).execute();
    await trx.deleteFrom('vpc_public_ips').where('namespace', '=', namespace).execute();
    await trx.deleteFrom('integration_events').where('organization_id', '=', organizationId).execute();
    await trx.deleteFrom('organization_audit').where('organization_id', '=', organizationId).execute();
    // Invitations and API keys go with the organization's row (foreign keys, on delete cascade).
    await trx.deleteFrom('organizations').where('id', '=', organizationId).execute();
  });
}

/**
 * The Events recorded about the organization's resources go with its namespace, as a cluster's
 * namespace deletion takes them; they are no resource of the organization's, so none waits on them.
 */
async function deleteEvents(deps: OrganizationDeletionDeps, namespace: string): Promise<void> {
  const { items } = await deps.store.list(EVENT_KIND, { namespace });
  for (const event of items) {
    try {
      await deps.store.delete(EVENT_KIND, namespace, event.metadata.name);
    } catch (error) {
      if (!isStoreError(error, 'NotFound')) throw error;
    }
  }
}

/**
 * One step of one organization's deletion: deletes what is not yet being deleted and answers
 * false while anything remains; once nothing does, removes the namespace and the rows.
 */
export async function continueOrganizationDeletion(
  deps: OrganizationDeletionDeps,
  organizationId: string,
): Promise<boolean> {
  const namespace = organizationNamespace(organizationId);
  const remaining = await remainingResources(deps, organizationId);
  if (remaining.length > 0) {
    for (const resource of remaining) {
      if (resource.deleting) continue;
      try {
        await deps.store.delete(resource.type, namespace, resource.name);
      } catch (error) {
        if (!isStoreError(error, 'NotFound')) throw error;
      }
    }
    deps.logger.info(
      { organizationId, remaining: remaining.length },
      'deleting the organization: resources remain',
    );
    return false;
  }
  await deleteEvents(deps, namespace);
  try {
    await deps.store.delete(NAMESPACE_KIND, undefined, namespace);
  } catch (error) {
    if (!isStoreError(error, 'NotFound')) throw error;
  }
  await purgeOrganization(deps, organizationId);
  deps.logger.info({ organizationId }, 'organization deleted');
  return true;
}

export interface OrganizationDeletionWorker {
  /** Runs a pass now rather than at the next tick (after a request). */
  kick(): void;
  /** Resolves once no pass is running; passes started by `kick` included. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Drives every organization marked for deletion: a pass every `intervalMs`, on `kick`, and every
 * `followUpMs` while a deletion waits on finalizers, so one under way is not left for a full interval.
 */
export function startOrganizationDeletion(
  deps: OrganizationDeletionDeps,
  options: { intervalMs: number; followUpMs: number },
): OrganizationDeletionWorker {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  let followUp: NodeJS.Timeout | undefined;
  /** Answers whether a deletion is still under way. */
  const pass = async (): Promise<boolean> => {
    const deleting = await deps.database.kysely
      .selectFrom('organizations')
      .select('id')
      .where('deleting_at', 'is not', null)
      .execute();
    let pending = false;
    for (const { id } of deleting) {
      if (stopped) return false;
      try {
        if (!(await continueOrganizationDeletion(deps, id))) pending = true;
      } catch (error) {
        pending = true;
        deps.logger.error({ err: error, organizationId: id }, 'organization deletion step failed; retrying');
      }
    }
    return pending;
  };
  const run = () => {
    running = running
      .then(async () => {
        if (stopped) return;
        if (await pass()) {
          clearTimeout(followUp);
          followUp = setTimeout(run, options.followUpMs);
          followUp.unref();
        }
      })
      .catch((error: unknown) => {
        deps.logger.error({ err: error }, 'organization deletion pass failed');
      });
  };
  const timer = setInterval(run, options.intervalMs);
  timer.unref();
  run();
  return {
    kick: run,
    idle: () => running,
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(followUp);
      await running;
    },
  };
}
