import type { ServerResponse } from 'node:http';
import type { WireRoutes } from '../routing/wire-api.js';
import { VAULT_ENGINE_VERSION, type VaultEngine } from '../../vault/vault-engine.js';
import type { SealStatus } from '../../vault/seal.js';
import { VaultError } from '../../vault/vault-error.js';
import type { AddressedCluster } from './cluster-directory.js';
import {
  anonymousCaller,
  bodyOf,
  optionalString,
  send,
  tokenCaller,
  type VaultApiRequest,
} from './wire-format.js';

/** The answer for any use of a cluster that has no keys yet. */
export const notInitialized = (): VaultError => new VaultError('sealed', 'Vault is not initialized');

/** The addressed cluster, which must be initialised. */
export function initializedCluster(req: VaultApiRequest): AddressedCluster {
  const cluster = req.locals;
  if (!cluster.initialized) throw notInitialized();
  return cluster;
}

/** `sys/seal-status` as Vault answers it. */
function sealStatusBody(cluster: AddressedCluster, status: SealStatus | undefined) {
  return {
    type: status?.autoUnseal ? 'auto' : 'shamir',
    initialized: cluster.initialized,
    sealed: status?.sealed ?? true,
    t: status?.t ?? 0,
    n: status?.n ?? 0,
    progress: status?.progress ?? 0,
    nonce: '',
    version: VAULT_ENGINE_VERSION,
    migration: false,
    recovery_seal: status?.autoUnseal ?? false,
    storage_type: 'cloudplane',
  };
}

/** Seal status, health, unseal and seal. */
export function sealRoutes(router: WireRoutes<AddressedCluster>, engine: VaultEngine, now: () => Date): void {
  router.get('/v1/sys/seal-status', async (req, res) => {
    const cluster = req.locals;
    const status = cluster.initialized ? await cluster.engine.status() : undefined;
    send(res, 200, sealStatusBody(cluster, status));
  });

  // Vault's status codes: 200 unsealed, 503 sealed, 501 not initialised.
  router.get('/v1/sys/health', async (req, res) => {
    const cluster = req.locals;
    const status = cluster.initialized ? await cluster.engine.status() : undefined;
    send(res, !status ? 501 : status.sealed ? 503 : 200, {
      initialized: cluster.initialized,
      sealed: status?.sealed ?? true,
      standby: false,
      performance_standby: false,
      replication_performance_mode: 'disabled',
      replication_dr_mode: 'disabled',
      server_time_utc: Math.floor(now().getTime() / 1000),
      version: VAULT_ENGINE_VERSION,
      cluster_name: cluster.id,
    });
  });

  const unseal = async (req: VaultApiRequest, res: ServerResponse) => {
    const cluster = initializedCluster(req);
    const body = bodyOf(req);
    if (body.reset === true) {
      await cluster.engine.perform(
        anonymousCaller(req),
        { operation: 'UPDATE', path: 'sys/unseal', successStatus: 200, requiresUnseal: false },
        async (operations) => {
          const keyring = await engine.seals.readKeyring(operations.db, cluster.id);
          // Sealing a sealed cluster only forgets the key shares given so far.
          if (keyring && keyring.auto_unseal === 0 && !engine.seals.status(keyring).sealed) return;
          if (keyring && keyring.auto_unseal === 0) await engine.seals.seal(operations.db, keyring);
        },
      );
      send(res, 200, sealStatusBody(cluster, await cluster.engine.status()));
      return;
    }
    const key = optionalString(body, 'key');
    if (key === undefined || key === '') {
      throw new VaultError(
        'invalid',
        "'key' must be specified in request body as JSON, or 'reset' set to true",
      );
    }
    send(res, 200, sealStatusBody(cluster, await cluster.engine.unseal(anonymousCaller(req), key)));
  };
  router.put('/v1/sys/unseal', unseal);
  router.post('/v1/sys/unseal', unseal);

  const seal = async (req: VaultApiRequest, res: ServerResponse) => {
    await initializedCluster(req).engine.seal(tokenCaller(req));
    send(res, 204);
  };
  router.put('/v1/sys/seal', seal);
  router.post('/v1/sys/seal', seal);
}
