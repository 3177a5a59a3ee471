/**
 * Where a backup is kept, as an artifact location: a dump file on the backup claim of a
 * namespace, or a CloudNativePG Backup. Callers keep it opaque; the runtime reads it back.
 */
import { WorkloadError } from '../runtime.js';

export type ArtifactPlace =
  | { kind: 'dump'; namespace: string; claim: string; file: string; engine: string; sourceId: string }
  | { kind: 'cnpg'; namespace: string; name: string };

const DUMP =
  /^kubernetes-dump:\/\/([a-z0-9-]+)\/([a-z0-9.-]+)\/((bkp_[A-Za-z0-9_-]+)--([a-z]+)--([a-z][a-z0-9_]*)\.[a-z.]+)$/;
const CNPG = /^cnpg-backup:\/\/([a-z0-9-]+)\/([a-z0-9-]+)$/;

export function dumpFileName(backupId: string, engine: string, sourceId: string, extension: string): string {
  if (!/^bkp_[A-Za-z0-9_-]+$/.test(backupId)) {
    throw new WorkloadError('InvalidName', `${JSON.stringify(backupId)} cannot name a backup`);
  }
  return `${backupId}--${engine}--${sourceId}.${extension}`;
}

export function locationOf(place: ArtifactPlace): string {
  return place.kind === 'dump'
    ? `kubernetes-dump://${place.namespace}/${place.claim}/${place.file}`
    : `cnpg-backup://${place.namespace}/${place.name}`;
}

export function placeOf(location: string): ArtifactPlace {
  const dump = DUMP.exec(location);
  if (dump) {
    const [, namespace, claim, file, , engine, sourceId] = dump as unknown as string[];
    return {
      kind: 'dump',
      namespace: namespace!,
      claim: claim!,
      file: file!,
      engine: engine!,
      sourceId: sourceId!,
    };
  }
  const cnpg = CNPG.exec(location);
  if (cnpg) return { kind: 'cnpg', namespace: cnpg[1]!, name: cnpg[2]! };
  throw new WorkloadError('InvalidBackup', 'the backup was not made by the kubernetes runtime');
}
