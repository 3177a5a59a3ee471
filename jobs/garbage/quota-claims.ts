/**
 * Quota claims of a Database, NfsShare or Backup that no longer exists: each controller releases
 * its claims when the object goes, so these are what an interrupted deletion left, and they count
 * against the organization's quota until removed. Claims of ids of another kind are left alone.
 */
import { releaseQuota } from '../../controllers/data-services/index.js';
import type { ResourceCollector } from './types.js';
import { orphanCutoff } from './types.js';

const COLLECTED_ID = /^(db|nfs|bkp)_/;

export const ORPHANED_QUOTA_CLAIMS: ResourceCollector = {
  shape: 'resources',
  name: 'quota_claims',
  needs: ['control plane'],
  async list(scope) {
    const view = scope.view!;
    const claims = await scope.database.kysely
      .selectFrom('quota_claims')
      .select(['namespace', 'resource_id'])
      .select((eb) => eb.fn.min('created_at').as('created_at'))
      .where('created_at', '<', orphanCutoff(scope))
      .groupBy(['namespace', 'resource_id'])
      .orderBy('namespace')
      .orderBy('resource_id')
      .execute();
    return claims
      .filter(
        (claim) =>
          COLLECTED_ID.test(claim.resource_id) &&
          !view.dataServices.has(`${claim.namespace}/${claim.resource_id}`),
      )
      .map((claim) => ({
        resource: `${claim.namespace}/${claim.resource_id}`,
        since: claim.created_at,
        reason: 'quota claim of a resource that no longer exists',
        protected: view.protectedIds.has(claim.resource_id),
      }));
  },
  async remove({ database }, leftover) {
    const [namespace, resourceId] = splitResource(leftover.resource);
    await releaseQuota(database, namespace, resourceId);
  },
};

/** `<namespace>/<resource id>`: namespaces hold no `/`, ids neither. */
function splitResource(resource: string): [string, string] {
  const slash = resource.indexOf('/');
  return [resource.slice(0, slash), resource.slice(slash + 1)];
}
