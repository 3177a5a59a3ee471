/**
 * Backups past their retention are deleted by their own controller when they expire; garbage
 * collection only checks that it did, so an overdue one shows up in the run's summary and log.
 */
import type { ControlPlaneView } from './control-plane-view.js';
import { isProtected } from './control-plane-view.js';
import { ORPHAN_GRACE_MS } from './types.js';

export interface OverdueBackup {
  resource: string;
  expiredAt: string;
  protected: boolean;
}

/** Backups whose expiry passed more than the grace ago: their controller should have removed them. */
export function overdueBackups(view: ControlPlaneView, now: Date): OverdueBackup[] {
  const overdue: OverdueBackup[] = [];
  for (const backup of view.backups) {
    const expiredAt = backup.status?.expiresAt;
    if (expiredAt === undefined || Date.parse(expiredAt) > now.getTime() - ORPHAN_GRACE_MS) continue;
    overdue.push({
      resource: `${backup.metadata.namespace ?? ''}/${backup.metadata.name}`,
      expiredAt,
      protected: isProtected(backup),
    });
  }
  return overdue;
}
