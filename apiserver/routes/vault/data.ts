import { randomUUID } from 'node:crypto';
import type { JsonSchema } from '../../routing/json-schema.js';
import { defineRoute, type RouteDefinition, type AuthenticatedContext } from '../../routing/route.js';
import {
  answering,
  callerOf,
  CLUSTER_PARAMS,
  clusterEngine,
  READ_SCOPES,
  WRITE_SCOPES,
  type VaultRouteServices,
} from './vault-request.js';

/** Vault's response wrapper around secret data. */
function wrapped(data: unknown) {
  return {
    request_id: randomUUID(),
    lease_id: '',
    renewable: false,
    lease_duration: 0,
    data,
    warnings: null,
    auth: null,
  };
}

const WRAPPER = {
  type: 'object',
  properties: {
    request_id: { type: 'string', format: 'uuid' },
    lease_id: { type: 'string' },
    renewable: { type: 'boolean' },
    lease_duration: { type: 'integer' },
    data: { type: 'object' },
    warnings: { type: ['array', 'null'] },
    auth: { type: ['object', 'null'] },
  },
} as const satisfies JsonSchema;

const SECRET_PARAMS = {
  type: 'object',
  required: ['id', 'path'],
  properties: { id: CLUSTER_PARAMS.properties.id, path: { type: 'string', description: 'The secret path' } },
} as const;

const KEY_PARAMS = {
  type: 'object',
  required: ['id', 'key'],
  properties: {
    id: CLUSTER_PARAMS.properties.id,
    key: { type: 'string', description: 'The transit key name' },
  },
} as const;

interface SecretParams {
  id: string;
  path: string;
}

interface KeyParams {
  id: string;
  key: string;
}

async function listVaultSecrets(
  ctx: AuthenticatedContext<
    { params: { id: string }; query: { path: string; list: boolean } },
    VaultRouteServices
  >,
) {
  const cluster = await clusterEngine(ctx);
  const prefix = ctx.query.path.replace(/^\/+/, '');
  const keys = await answering(() =>
    cluster.perform(
      callerOf(ctx),
      {
        operation: 'LIST',
        path: `secret/metadata/${prefix}`,
        capability: 'list',
        successStatus: 200,
        readOnly: true,
      },
      (ops) => ops.kv.list(prefix, ctx.query.list),
    ),
  );
  return { data: wrapped({ keys }) };
}

async function writeVaultSecret(
  ctx: AuthenticatedContext<
    {
      params: SecretParams;
      body: { data: Record<string, unknown>; options?: { cas?: number } };
    },
    VaultRouteServices
  >,
) {
  const cluster = await clusterEngine(ctx);
  const { path } = ctx.params;
  const metadata = await answering(() =>
    cluster.perform(
      callerOf(ctx),
      {
        operation: 'UPDATE',
        path: `secret/data/${path}`,
        capability: async (ops) => ((await ops.kv.exists(path)) ? 'update' : 'create'),
        successStatus: 200,
      },
      (ops) => ops.kv.write(path, ctx.body.data, { cas: ctx.body.options?.cas }),
    ),
  );
  return { data: wrapped(metadata) };
}

async function getVaultSecret(
  ctx: AuthenticatedContext<{ params: SecretParams; query: { version?: number } }, VaultRouteServices>,
) {
  const cluster = await clusterEngine(ctx);
  const { path } = ctx.params;
  const secret = await answering(() =>
    cluster.perform(
      callerOf(ctx),
      {
        operation: 'READ',
        path: `secret/data/${path}`,
        capability: 'read',
        successStatus: 200,
        readOnly: true,
      },
      (ops) => ops.kv.read(path, ctx.query.version),
    ),
  );
  return { data: wrapped(secret) };
}

async function deleteVaultSecret(ctx: AuthenticatedContext<{ params: SecretParams }, VaultRouteServices>) {
  const cluster = await clusterEngine(ctx);
  const { path } = ctx.params;
  await answering(() =>
    cluster.perform(
      callerOf(ctx),
      { operation: 'DELETE', path: `secret/data/${path}`, capability: 'delete', successStatus: 204 },
      (ops) => ops.kv.delete(path),
    ),
  );
  return { status: 204 };
}

async function encryptWithKey(
  ctx: AuthenticatedContext<{ params: KeyParams; body: { plaintext: string } }, VaultRouteServices>,
) {
  const cluster = await clusterEngine(ctx);
  const { key } = ctx.params;
  const cipherText = await answering(() =>
    cluster.perform(
      callerOf(ctx),
      {
        operation: 'UPDATE',
        path: `transit/encrypt/${key}`,
        capability: 'update',
        successStatus: 200,
        readOnly: true,
      },
      (ops) => ops.transit.encrypt(key, ctx.body.plaintext),
    ),
  );
  return { data: { cipher_text: cipherText } };
}

async function decryptWithKey(
  ctx: AuthenticatedContext<{ params: KeyParams; body: { cipher_text: string } }, VaultRouteServices>,
) {
  const cluster = await clusterEngine(ctx);
  const { key } = ctx.params;
  const plaintext = await answering(() =>
    cluster.perform(
      callerOf(ctx),
      {
        operation: 'UPDATE',
        path: `transit/decrypt/${key}`,
        capability: 'update',
        successStatus: 200,
        readOnly: true,
      },
      (ops) => ops.transit.decrypt(key, ctx.body.cipher_text),
    ),
  );
  return { data: { plaintext } };
}

async function rotateVaultKey(ctx: AuthenticatedContext<{ params: KeyParams }, VaultRouteServices>) {
  const cluster = await clusterEngine(ctx);
  const { key } = ctx.params;
  const info = await answering(() =>
    cluster.perform(
      callerOf(ctx),
      {
        operation: 'UPDATE',
        path: `transit/keys/${key}/rotate`,
        capability: 'update',
        successStatus: 200,
      },
      (ops) => ops.transit.rotate(key),
    ),
  );
  return { data: info };
}

/** Secrets (KV v2) and transit encryption. */
export const VAULT_DATA_ROUTES: RouteDefinition<VaultRouteServices>[] = [
  defineRoute<{ params: { id: string }; query: { path: string; list: boolean } }, VaultRouteServices>({
    method: 'get',
    path: '/api/v1/vault/:id/secret',
    area: 'vault',
    auth: 'authenticated',
    scopes: READ_SCOPES,
    tags: ['vault'],
    summary: 'List secret keys under a path prefix',
    description:
      'Immediate children (folders end in "/"), or with list=true every secret path under the prefix.',
    request: {
      params: CLUSTER_PARAMS,
      query: {
        type: 'object',
        properties: {
          path: { type: 'string', default: '', maxLength: 512 },
          list: { type: 'boolean', default: false, description: 'Recursive list mode' },
        },
      },
    },
    responses: {
      200: { description: 'data.keys', schema: WRAPPER },
      400: { description: 'Invalid path' },
      503: { description: 'Sealed' },
    },
    handler: listVaultSecrets,
  }),
  defineRoute<
    {
      params: SecretParams;
      body: { data: Record<string, unknown>; options?: { cas?: number } };
    },
    VaultRouteServices
  >({
    method: 'post',
    path: '/api/v1/vault/:id/secret/*path',
    area: 'vault',
    auth: 'authenticated',
    scopes: WRITE_SCOPES,
    tags: ['vault'],
    summary: 'Write a new version of a secret (create or update)',
    description:
      'options.cas makes the write check-and-set: 0 creates only, N requires the current version to be N.',
    request: {
      params: SECRET_PARAMS,
      body: {
        type: 'object',
        required: ['data'],
        additionalProperties: false,
        properties: {
          data: { type: 'object', description: 'Key/value pairs' },
          options: {
            type: 'object',
            additionalProperties: false,
            properties: { cas: { type: 'integer', minimum: 0 } },
          },
        },
      },
    },
    responses: {
      200: { description: 'Version metadata', schema: WRAPPER },
      400: { description: 'Invalid path' },
      409: { description: 'Check-and-set failed' },
      503: { description: 'Sealed' },
    },
    handler: writeVaultSecret,
  }),
  defineRoute<{ params: SecretParams; query: { version?: number } }, VaultRouteServices>({
    method: 'get',
    path: '/api/v1/vault/:id/secret/*path',
    area: 'vault',
    auth: 'authenticated',
    scopes: READ_SCOPES,
    tags: ['vault'],
    summary: 'Read a secret: the latest version, or ?version=N',
    request: {
      params: SECRET_PARAMS,
      query: { type: 'object', properties: { version: { type: 'integer', minimum: 1 } } },
    },
    responses: {
      200: { description: 'data.data and data.metadata', schema: WRAPPER },
      404: { description: 'No such secret or version' },
    },
    handler: getVaultSecret,
  }),
  defineRoute<{ params: SecretParams }, VaultRouteServices>({
    method: 'delete',
    path: '/api/v1/vault/:id/secret/*path',
    area: 'vault',
    auth: 'authenticated',
    scopes: WRITE_SCOPES,
    tags: ['vault'],
    summary: 'Delete the latest version of a secret (soft delete)',
    request: { params: SECRET_PARAMS },
    responses: { 204: { description: 'Deleted' }, 404: { description: 'No such secret' } },
    handler: deleteVaultSecret,
  }),
  defineRoute<{ params: KeyParams; body: { plaintext: string } }, VaultRouteServices>({
    method: 'post',
    path: '/api/v1/vault/:id/encrypt/:key',
    area: 'vault',
    auth: 'authenticated',
    scopes: WRITE_SCOPES,
    tags: ['vault'],
    summary: 'Encrypt base64 plaintext with a named key (made on first use)',
    request: {
      params: KEY_PARAMS,
      body: {
        type: 'object',
        required: ['plaintext'],
        additionalProperties: false,
        properties: { plaintext: { type: 'string', description: 'base64' } },
      },
    },
    responses: {
      200: {
        description: 'vault:v<N>:<base64>',
        schema: { type: 'object', properties: { cipher_text: { type: 'string' } } },
      },
      400: { description: 'Plaintext is not base64' },
    },
    handler: encryptWithKey,
  }),
  defineRoute<{ params: KeyParams; body: { cipher_text: string } }, VaultRouteServices>({
    method: 'post',
    path: '/api/v1/vault/:id/decrypt/:key',
    area: 'vault',
    auth: 'authenticated',
    scopes: WRITE_SCOPES,
    tags: ['vault'],
    summary: 'Decrypt a ciphertext of any version of a named key',
    request: {
      params: KEY_PARAMS,
      body: {
        type: 'object',
        required: ['cipher_text'],
        additionalProperties: false,
        properties: { cipher_text: { type: 'string' } },
      },
    },
    responses: {
      200: {
        description: 'base64 plaintext',
        schema: { type: 'object', properties: { plaintext: { type: 'string' } } },
      },
      400: { description: 'Malformed or foreign ciphertext' },
      404: { description: 'No such key' },
    },
    handler: decryptWithKey,
  }),
  defineRoute<{ params: KeyParams }, VaultRouteServices>({
    method: 'post',
    path: '/api/v1/vault/:id/keys/:key/rotate',
    area: 'vault',
    auth: 'authenticated',
    scopes: WRITE_SCOPES,
    tags: ['vault'],
    summary: 'Rotate a named key: new ciphertexts use the new version, old ones still decrypt',
    request: { params: KEY_PARAMS },
    responses: {
      200: {
        description: 'The key after rotation',
        schema: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            latest_version: { type: 'integer' },
            min_decryption_version: { type: 'integer' },
          },
        },
      },
      404: { description: 'No such key' },
    },
    handler: rotateVaultKey,
  }),
];
