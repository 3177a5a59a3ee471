import type { ServerResponse } from 'node:http';
import type { WireRoutes } from '../routing/wire-api.js';
import type { AddressedCluster } from './cluster-directory.js';
import { VaultError } from '../../vault/vault-error.js';
import { initializedCluster } from './sys-routes.js';
import {
  bodyOf,
  dataResponse,
  isList,
  pathParam,
  send,
  tokenCaller,
  type VaultApiRequest,
} from './wire-format.js';

function writeOptions(req: VaultApiRequest): { data: Record<string, unknown>; cas: number | undefined } {
  const body = bodyOf(req);
  const data = body.data;
  if (data === undefined || data === null) throw new VaultError('invalid', 'no data provided');
  if (typeof data !== 'object' || Array.isArray(data))
    throw new VaultError('invalid', 'data must be a JSON object');
  const options = body.options;
  if (options !== undefined && (typeof options !== 'object' || options === null || Array.isArray(options))) {
    throw new VaultError('invalid', 'options must be a JSON object');
  }
  const cas = (options as Record<string, unknown> | undefined)?.cas;
  if (cas !== undefined && (!Number.isInteger(cas) || (cas as number) < 0)) {
    throw new VaultError('invalid', 'options.cas must be a whole number, 0 or more');
  }
  return { data: data as Record<string, unknown>, cas: cas as number | undefined };
}

function versionQuery(req: VaultApiRequest): number | undefined {
  const version = req.query.version;
  if (version === undefined || version === '' || version === '0') return undefined;
  if (typeof version !== 'string' || !/^[1-9][0-9]*$/.test(version)) {
    throw new VaultError('invalid', 'version must be a positive whole number');
  }
  return Number(version);
}

async function writeSecret(req: VaultApiRequest, res: ServerResponse): Promise<void> {
  const path = pathParam(req, 'path');
  const { data, cas } = writeOptions(req);
  const metadata = await initializedCluster(req).engine.perform(
    tokenCaller(req),
    {
      operation: 'UPDATE',
      path: `secret/data/${path}`,
      capability: async (operations) => ((await operations.kv.exists(path)) ? 'update' : 'create'),
      successStatus: 200,
    },
    (operations) => operations.kv.write(path, data, { cas }),
  );
  send(res, 200, dataResponse(metadata));
}

async function listSecrets(req: VaultApiRequest, res: ServerResponse, prefix: string): Promise<void> {
  const keys = await initializedCluster(req).engine.perform(
    tokenCaller(req),
    {
      operation: 'LIST',
      path: `secret/metadata/${prefix}`,
      capability: 'list',
      successStatus: 200,
      readOnly: true,
    },
    (operations) => operations.kv.list(prefix),
  );
  if (keys.length === 0) throw new VaultError('not_found', `nothing under ${prefix}`);
  send(res, 200, dataResponse({ keys }));
}

/** The KV v2 secrets engine mounted at `secret/`. */
export function kvRoutes(router: WireRoutes<AddressedCluster>): void {
  router.get('/v1/secret/data/*path', async (req, res) => {
    const path = pathParam(req, 'path');
    const version = versionQuery(req);
    const secret = await initializedCluster(req).engine.perform(
      tokenCaller(req),
      {
        operation: 'READ',
        path: `secret/data/${path}`,
        capability: 'read',
        successStatus: 200,
        readOnly: true,
      },
      (operations) => operations.kv.read(path, version),
    );
    send(res, 200, dataResponse(secret));
  });
  router.post('/v1/secret/data/*path', writeSecret);
  router.put('/v1/secret/data/*path', writeSecret);
  router.delete('/v1/secret/data/*path', async (req, res) => {
    const path = pathParam(req, 'path');
    await initializedCluster(req).engine.perform(
      tokenCaller(req),
      { operation: 'DELETE', path: `secret/data/${path}`, capability: 'delete', successStatus: 204 },
      (operations) => operations.kv.delete(path),
    );
    send(res, 204);
  });

  router.get('/v1/secret/metadata', async (req, res) => {
    if (!isList(req)) throw new VaultError('invalid', 'list the secrets with ?list=true');
    await listSecrets(req, res, '');
  });
  router.get('/v1/secret/metadata/*path', async (req, res) => {
    const path = pathParam(req, 'path');
    if (isList(req)) {
      await listSecrets(req, res, path);
      return;
    }
    const metadata = await initializedCluster(req).engine.perform(
      tokenCaller(req),
      {
        operation: 'READ',
        path: `secret/metadata/${path}`,
        capability: 'read',
        successStatus: 200,
        readOnly: true,
      },
      (operations) => operations.kv.metadata(path),
    );
    send(
      res,
      200,
      dataResponse({ ...metadata, max_versions: 0, cas_required: false, delete_version_after: '0s' }),
    );
  });
  router.delete('/v1/secret/metadata/*path', async (req, res) => {
    const path = pathParam(req, 'path');
    await initializedCluster(req).engine.perform(
      tokenCaller(req),
      { operation: 'DELETE', path: `secret/metadata/${path}`, capability: 'delete', successStatus: 204 },
      (operations) => operations.kv.destroy(path),
    );
    send(res, 204);
  });
}
