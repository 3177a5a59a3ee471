import type { WireRoutes } from '../routing/wire-api.js';
import type { AddressedCluster } from './cluster-directory.js';
import { initializedCluster } from './sys-routes.js';
import { bodyOf, dataResponse, param, requiredString, send, tokenCaller } from './wire-format.js';

/** The transit secrets engine mounted at `transit/`. */
export function transitRoutes(router: WireRoutes<AddressedCluster>): void {
  router.post('/v1/transit/encrypt/:key', async (req, res) => {
    const key = param(req, 'key');
    const plaintext = requiredString(bodyOf(req), 'plaintext');
    const ciphertext = await initializedCluster(req).engine.perform(
      tokenCaller(req),
      {
        operation: 'UPDATE',
        path: `transit/encrypt/${key}`,
        capability: 'update',
        successStatus: 200,
        readOnly: true,
      },
      (operations) => operations.transit.encrypt(key, plaintext),
    );
    const version = /^vault:v(\d+):/.exec(ciphertext)?.[1];
    send(res, 200, dataResponse({ ciphertext, key_version: Number(version) }));
  });
  router.post('/v1/transit/decrypt/:key', async (req, res) => {
    const key = param(req, 'key');
    const ciphertext = requiredString(bodyOf(req), 'ciphertext');
    const plaintext = await initializedCluster(req).engine.perform(
      tokenCaller(req),
      {
        operation: 'UPDATE',
        path: `transit/decrypt/${key}`,
        capability: 'update',
        successStatus: 200,
        readOnly: true,
      },
      (operations) => operations.transit.decrypt(key, ciphertext),
    );
    send(res, 200, dataResponse({ plaintext }));
  });
  router.post('/v1/transit/keys/:key/rotate', async (req, res) => {
    const key = param(req, 'key');
    const info = await initializedCluster(req).engine.perform(
      tokenCaller(req),
      { operation: 'UPDATE', path: `transit/keys/${key}/rotate`, capability: 'update', successStatus: 200 },
      (operations) => operations.transit.rotate(key),
    );
    send(res, 200, dataResponse({ ...info, type: 'aes256-gcm96' }));
  });
  // Vault answers a key's creation with 204; creating one that exists changes nothing.
  router.post('/v1/transit/keys/:key', async (req, res) => {
    const key = param(req, 'key');
    await initializedCluster(req).engine.perform(
      tokenCaller(req),
      { operation: 'UPDATE', path: `transit/keys/${key}`, capability: 'update', successStatus: 204 },
      (operations) => operations.transit.create(key),
    );
    send(res, 204);
  });
  router.get('/v1/transit/keys/:key', async (req, res) => {
    const key = param(req, 'key');
    const info = await initializedCluster(req).engine.perform(
      tokenCaller(req),
      {
        operation: 'READ',
        path: `transit/keys/${key}`,
        capability: 'read',
        successStatus: 200,
        readOnly: true,
      },
      (operations) => operations.transit.read(key),
    );
    send(res, 200, dataResponse({ ...info, type: 'aes256-gcm96' }));
  });
}
