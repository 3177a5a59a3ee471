import type { ServerResponse } from 'node:http';
import type { WireRoutes } from '../routing/wire-api.js';
import type { AddressedCluster } from './cluster-directory.js';
import { AppRoleMethod, type AppRoleSettings } from '../../vault/approle.js';
import { AuthMethodStore, type AuthMethodType } from '../../vault/auth-methods.js';
import type { ClusterOperations, VaultEngine } from '../../vault/vault-engine.js';
import { JwtMethod, type JwtRoleSettings, type OidcProviders } from '../../vault/jwt-login.js';
import { VaultError } from '../../vault/vault-error.js';
import { initializedCluster } from './sys-routes.js';
import {
  anonymousCaller,
  authResponse,
  bodyOf,
  dataResponse,
  durationSeconds,
  isList,
  optionalString,
  param,
  pathParam,
  send,
  stringList,
  tokenCaller,
  type VaultBody,
  type VaultApiRequest,
} from './wire-format.js';

async function methodType(operations: ClusterOperations, mount: string): Promise<AuthMethodType> {
  const method = await operations.authMethods.read(mount);
  if (method.type === 'token') throw new VaultError('not_found', `auth/${mount} has no roles`);
  return method.type;
}

function appRoleSettings(body: VaultBody): Partial<AppRoleSettings> {
  return {
    token_policies: stringList(body, 'token_policies') ?? stringList(body, 'policies'),
    token_ttl: durationSeconds(body, 'token_ttl'),
    token_max_ttl: durationSeconds(body, 'token_max_ttl'),
    secret_id_ttl: durationSeconds(body, 'secret_id_ttl'),
  };
}

function boundClaims(body: VaultBody): Record<string, string | string[]> {
  const claims = body.bound_claims;
  if (claims === undefined || claims === null) return {};
  const valid =
    typeof claims === 'object' &&
    !Array.isArray(claims) &&
    Object.values(claims).every(
      (value) =>
        typeof value === 'string' ||
        (Array.isArray(value) && value.every((entry) => typeof entry === 'string')),
    );
  if (!valid)
    throw new VaultError('invalid', 'bound_claims must map claim names to a string or a list of strings');
  return claims as Record<string, string | string[]>;
}

function jwtRoleSettings(body: VaultBody): JwtRoleSettings {
  const roleType = optionalString(body, 'role_type') ?? 'jwt';
  if (roleType !== 'jwt')
    throw new VaultError('invalid', `role_type ${JSON.stringify(roleType)} is not supported; use "jwt"`);
  const userClaim = optionalString(body, 'user_claim');
  if (!userClaim) throw new VaultError('invalid', 'a user claim must be defined on the role');
  return {
    role_type: 'jwt',
    bound_audiences: stringList(body, 'bound_audiences') ?? [],
    user_claim: userClaim,
    token_policies: stringList(body, 'token_policies') ?? stringList(body, 'policies') ?? [],
    token_ttl: durationSeconds(body, 'token_ttl') ?? 0,
    bound_subject: optionalString(body, 'bound_subject') ?? '',
    bound_claims: boundClaims(body),
  };
}

/** Enabling, listing and disabling auth methods, and the roles and logins of approle and jwt mounts. */
export function authMethodRoutes(
  router: WireRoutes<AddressedCluster>,
  engine: VaultEngine,
  providers: OidcProviders,
): void {
  const now = engine.now;

  router.get('/v1/sys/auth', async (req, res) => {
    const methods = await initializedCluster(req).engine.perform(
      tokenCaller(req),
      { operation: 'READ', path: 'sys/auth', capability: 'read', successStatus: 200 },
      (operations) => operations.authMethods.list(),
    );
    const mounts = Object.fromEntries(
      methods.map((method) => [
        method.path,
        { type: method.type, description: method.description, config: method.config },
      ]),
    );
    send(res, 200, { ...dataResponse(mounts), ...mounts });
  });

  const enable = async (req: VaultApiRequest, res: ServerResponse) => {
    const path = pathParam(req, 'path');
    const body = bodyOf(req);
    const type = optionalString(body, 'type') ?? '';
    const description = optionalString(body, 'description') ?? '';
    const config = body.config ?? {};
    if (typeof config !== 'object' || config === null || Array.isArray(config)) {
      throw new VaultError('invalid', 'config must be a JSON object');
    }
    await initializedCluster(req).engine.perform(
      tokenCaller(req),
      { operation: 'UPDATE', path: `sys/auth/${path}`, capability: 'sudo', successStatus: 204 },
      (operations) =>
        operations.authMethods.enable(path, type, description, config as Record<string, unknown>),
    );
    send(res, 204);
  };
  router.post('/v1/sys/auth/*path', enable);
  router.put('/v1/sys/auth/*path', enable);
  router.delete('/v1/sys/auth/*path', async (req, res) => {
    const path = pathParam(req, 'path');
    await initializedCluster(req).engine.perform(
      tokenCaller(req),
      { operation: 'DELETE', path: `sys/auth/${path}`, capability: 'sudo', successStatus: 204 },
      (operations) => operations.authMethods.disable(path),
    );
    send(res, 204);
  });

  router.get('/v1/auth/:mount/role', async (req, res) => {
    const mount = param(req, 'mount');
    if (!isList(req)) throw new VaultError('invalid', 'list the roles with ?list=true');
    const keys = await initializedCluster(req).engine.perform(
      tokenCaller(req),
      { operation: 'LIST', path: `auth/${mount}/role`, capability: 'list', successStatus: 200 },
      async (operations) =>
        (await methodType(operations, mount)) === 'approle'
          ? new AppRoleMethod(operations, mount, now).listRoles()
          : new JwtMethod(operations.db, operations.clusterId, mount, now).listRoles(),
    );
    if (keys.length === 0) throw new VaultError('not_found', 'no roles');
    send(res, 200, dataResponse({ keys }));
  });

  const writeRole = async (req: VaultApiRequest, res: ServerResponse) => {
    const mount = param(req, 'mount');
    const name = param(req, 'name');
    const body = bodyOf(req);
    await initializedCluster(req).engine.perform(
      tokenCaller(req),
      { operation: 'UPDATE', path: `auth/${mount}/role/${name}`, capability: 'update', successStatus: 204 },
      async (operations) =>
        (await methodType(operations, mount)) === 'approle'
          ? new AppRoleMethod(operations, mount, now).writeRole(name, appRoleSettings(body))
          : new JwtMethod(operations.db, operations.clusterId, mount, now).writeRole(
              name,
              jwtRoleSettings(body),
            ),
    );
    send(res, 204);
  };
  router.post('/v1/auth/:mount/role/:name', writeRole);
  router.put('/v1/auth/:mount/role/:name', writeRole);

  router.get('/v1/auth/:mount/role/:name', async (req, res) => {
    const mount = param(req, 'mount');
    const name = param(req, 'name');
    const role = await initializedCluster(req).engine.perform(
      tokenCaller(req),
      { operation: 'READ', path: `auth/${mount}/role/${name}`, capability: 'read', successStatus: 200 },
      async (operations) => {
        if ((await methodType(operations, mount)) === 'jwt') {
          const { name: _name, ...settings } = await new JwtMethod(
            operations.db,
            operations.clusterId,
            mount,
            now,
          ).readRole(name);
          return { ...settings, policies: settings.token_policies };
        }
        const {
          name: _name,
          role_id: _roleId,
          ...settings
        } = await new AppRoleMethod(operations, mount, now).readRole(name);
        return {
          ...settings,
          policies: settings.token_policies,
          bind_secret_id: true,
          secret_id_num_uses: 0,
        };
      },
    );
    send(res, 200, dataResponse(role));
  });

  router.delete('/v1/auth/:mount/role/:name', async (req, res) => {
    const mount = param(req, 'mount');
    const name = param(req, 'name');
    await initializedCluster(req).engine.perform(
      tokenCaller(req),
      { operation: 'DELETE', path: `auth/${mount}/role/${name}`, capability: 'delete', successStatus: 204 },
      async (operations) =>
        (await methodType(operations, mount)) === 'approle'
          ? new AppRoleMethod(operations, mount, now).deleteRole(name)
          : new JwtMethod(operations.db, operations.clusterId, mount, now).deleteRole(name),
    );
    send(res, 204);
  });

  router.get('/v1/auth/:mount/role/:name/role-id', async (req, res) => {
    const mount = param(req, 'mount');
    const name = param(req, 'name');
    const role = await initializedCluster(req).engine.perform(
      tokenCaller(req),
      {
        operation: 'READ',
        path: `auth/${mount}/role/${name}/role-id`,
        capability: 'read',
        successStatus: 200,
      },
      (operations) => new AppRoleMethod(operations, mount, now).readRole(name),
    );
    send(res, 200, dataResponse({ role_id: role.role_id }));
  });

  const createSecretId = async (req: VaultApiRequest, res: ServerResponse) => {
    const mount = param(req, 'mount');
    const name = param(req, 'name');
    const secretId = await initializedCluster(req).engine.perform(
      tokenCaller(req),
      {
        operation: 'UPDATE',
        path: `auth/${mount}/role/${name}/secret-id`,
        capability: 'update',
        successStatus: 200,
      },
      (operations) => new AppRoleMethod(operations, mount, now).createSecretId(name),
    );
    send(res, 200, dataResponse(secretId));
  };
  router.post('/v1/auth/:mount/role/:name/secret-id', createSecretId);
  router.put('/v1/auth/:mount/role/:name/secret-id', createSecretId);

  router.post('/v1/auth/:mount/login', async (req, res) => {
    const mount = param(req, 'mount');
    const body = bodyOf(req);
    const cluster = initializedCluster(req);
    const type = await new AuthMethodStore(engine.db, cluster.id, now)
      .read(mount)
      .then((method) => method.type)
      .catch(() => undefined);
    // A JWT is verified before the audited transaction: fetching the provider's keys must not
    // hold the data plane. A refusal is carried into the transaction so it is audited too.
    const verdict =
      type === 'jwt' && !(await cluster.engine.status()).sealed
        ? await new JwtMethod(engine.db, cluster.id, mount, now)
            .verify(optionalString(body, 'role') ?? '', optionalString(body, 'jwt') ?? '', providers)
            .then((identity) => ({ identity }))
            .catch((error: unknown) => ({ error }))
        : undefined;
    const token = await cluster.engine.perform(
      anonymousCaller(req),
      { operation: 'UPDATE', path: `auth/${mount}/login`, successStatus: 200 },
      async (operations) => {
        if ((await methodType(operations, mount)) === 'approle') {
          return new AppRoleMethod(operations, mount, now).login(
            optionalString(body, 'role_id') ?? '',
            optionalString(body, 'secret_id') ?? '',
          );
        }
        if (!verdict) throw new VaultError('sealed', 'Vault is sealed');
        if ('error' in verdict) throw verdict.error;
        return new JwtMethod(operations.db, operations.clusterId, mount, now).issueToken(
          operations,
          verdict.identity,
        );
      },
    );
    send(res, 200, authResponse(token));
  });
}
