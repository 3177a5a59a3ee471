/**
 * Shares in a cluster: a ReadWriteMany claim in the organization's namespace. Its use is measured,
 * archived and restored by Jobs that mount it.
 */
import type { ObjectStore } from '../../control-plane/types.js';
import type { Logger } from '../../observability/logger.js';
import { WorkloadError, type ShareObservation, type ShareRuntime, type ShareWorkload } from '../runtime.js';
import { dumpFileName, locationOf, placeOf } from './artifacts.js';
import type { JobRunner } from './jobs.js';
import { apply, read, refused, removeObject } from './objects.js';
import { shareObservation } from './readiness.js';
import { kubeName } from './names.js';
import { BACKUPS_MOUNT, renderBackupClaim, renderShareClaim, reportSize, SHARE_MOUNT } from './render.js';
import { PERSISTENT_VOLUME_CLAIM } from './resource-types.js';
import type { KubernetesSettings } from './settings.js';
import { WORKLOAD_LABEL } from '../../crds/annotations.js';

const MEASURE = `find ${SHARE_MOUNT} -type f -exec stat -c %s {} + | awk '{ total += $1 } END { print total + 0 }' > /dev/termination-log`;

export function kubernetesShares(
  store: ObjectStore,
  logger: Logger,
  settings: KubernetesSettings,
  jobs: JobRunner,
): ShareRuntime {
  const jobLabels = (share: ShareWorkload) => ({ [WORKLOAD_LABEL]: share.id });

  async function observe(share: ShareWorkload): Promise<ShareObservation> {
    const claim = await read(store, PERSISTENT_VOLUME_CLAIM, share.organization, kubeName(share.id));
    if (!claim || (claim.status as { phase?: string } | undefined)?.phase !== 'Bound')
      return shareObservation(claim, 0);
    const used = await jobs
      .run(
        {
          name: `${kubeName(share.id)}-usage`,
          namespace: share.organization,
          image: settings.toolsImage,
          script: MEASURE,
          env: [],
          claims: { [kubeName(share.id)]: SHARE_MOUNT },
          labels: jobLabels(share),
        },
        'MeasurementFailed',
      )
      .catch((error: unknown) => {
        logger.warn({ share: share.id, err: (error as Error).message }, 'share use not measured');
        return '0';
      });
    return shareObservation(claim, Number(used ?? 0));
  }

  return {
    async ensure(share) {
      await apply(store, PERSISTENT_VOLUME_CLAIM, renderShareClaim(settings, share), (claim) => ({
        spec: { resources: (claim.spec as { resources: unknown }).resources },
      }));
      return observe(share);
    },

    observe,

    async remove(share) {
      await removeObject(store, PERSISTENT_VOLUME_CLAIM, share.organization, kubeName(share.id));
      logger.info({ share: share.id }, 'share claim removed');
    },

    async backup(share, backupId) {
      const namespace = share.organization;
      const { claimName } = settings.backupStorage;
      if (!(await read(store, PERSISTENT_VOLUME_CLAIM, namespace, kubeName(share.id)))) {
        throw new WorkloadError('NotFound', `share ${share.id} does not exist here`);
      }
      const backupClaim = renderBackupClaim(settings.backupStorage, namespace);
      if (!(await read(store, PERSISTENT_VOLUME_CLAIM, namespace, claimName))) {
        await store.create(PERSISTENT_VOLUME_CLAIM, backupClaim).catch(refused('make the backup claim'));
      }
      const file = dumpFileName(backupId, 'share', share.id, 'tar.gz');
      const target = `${BACKUPS_MOUNT}/${file}`;
      const size = await jobs.run(
        {
          name: `${kubeName(backupId)}-dump`,
          namespace,
          image: settings.toolsImage,
          script: `tar -czf "${target}.partial" -C ${SHARE_MOUNT} .\nmv "${target}.partial" "${target}"\n${reportSize(target)}`,
          env: [],
          claims: { [kubeName(share.id)]: SHARE_MOUNT, [claimName]: BACKUPS_MOUNT },
          labels: jobLabels(share),
        },
        'BackupFailed',
      );
      logger.info({ share: share.id, backup: backupId }, 'share archived to the backup claim');
      return {
        location: locationOf({
          kind: 'dump',
          namespace,
          claim: claimName,
          file,
          engine: 'share',
          sourceId: share.id,
        }),
        sizeBytes: Number(size ?? 0),
      };
    },

    async restore(artifact, target) {
      const place = placeOf(artifact.location);
      if (place.kind !== 'dump' || place.engine !== 'share') {
        throw new WorkloadError('InvalidBackup', 'the backup is not the archive of a share');
      }
      if (place.namespace !== target.organization) {
        throw new WorkloadError('InvalidBackup', 'the backup is kept in another organization’s namespace');
      }
      const archive = `${BACKUPS_MOUNT}/${place.file}`;
      // Members outside the share (absolute, or with ..) refuse the archive before anything is touched.
      const script = [
        `test -f "${archive}" || { echo "the backup file is gone" > /dev/termination-log; exit 1; }`,
        `if tar -tzf "${archive}" | grep -Eq '^/|(^|/)\\.\\.(/|$)'; then echo "the backup holds a file outside the share" > /dev/termination-log; exit 1; fi`,
        `find ${SHARE_MOUNT} -mindepth 1 -delete`,
        `tar -xzf "${archive}" -C ${SHARE_MOUNT}`,
      ].join('\n');
      await jobs.run(
        {
          name: `${kubeName(place.file.split('--')[0]!)}-restore-${kubeName(target.id)}`,
          namespace: place.namespace,
          image: settings.toolsImage,
          script,
          env: [],
          claims: { [kubeName(target.id)]: SHARE_MOUNT, [place.claim]: BACKUPS_MOUNT },
          labels: jobLabels(target),
        },
        'RestoreFailed',
      );
      logger.info({ share: target.id }, 'share restored from an archive');
    },
  };
}
