import type { ServerResponse } from 'node:http';
import type { WireRoutes } from '../routing/wire-api.js';
import type { AddressedCluster } from './cluster-directory.js';
import type { TokenInfo } from '../../vault/tokens.js';
import { VaultError } from '../../vault/vault-error.js';
import { initializedCluster } from './sys-routes.js';
import {
  authResponse,
  bodyOf,
  dataResponse,
  durationSeconds,
  optionalString,
  send,
  stringList,
  tokenCaller,
  type VaultApiRequest,
} from './wire-format.js';

/**
 * The policies of a child token: those asked for, or the parent's. Only a root token may give
 * policies it does not hold itself, as in Vault; otherwise any token allowed to create tokens
 * could mint a more powerful one.
 */
function childPolicies(parent: TokenInfo, requested: string[] | undefined): string[] {
  const wanted = requested ?? parent.policies.filter((policy) => policy !== 'default');
  if (parent.policies.includes('root')) return wanted;
  const beyond = wanted.filter((policy) => policy !== 'default' && !parent.policies.includes(policy));
  if (beyond.length > 0) {
    throw new VaultError(
      'invalid',
      `child policies must be subset of parent (not held: ${beyond.join(', ')})`,
    );
  }
  return wanted;
}

function metaOf(body: Record<string, unknown>): Record<string, string> | undefined {
  const meta = body.meta;
  if (meta === undefined || meta === null) return undefined;
  if (
    typeof meta !== 'object' ||
    Array.isArray(meta) ||
    !Object.values(meta).every((v) => typeof v === 'string')
  ) {
    throw new VaultError('invalid', 'meta must be an object of strings');
  }
  return meta as Record<string, string>;
}

/** lookup-self's answer: Vault's token fields; `id` is the token the caller already holds. */
function lookupBody(token: string, info: TokenInfo) {
  return {
    accessor: info.accessor,
    creation_time: Math.floor(Date.parse(info.issue_time) / 1000),
    creation_ttl: Math.round((Date.parse(info.expire_time) - Date.parse(info.issue_time)) / 1000),
    display_name: info.display_name,
    entity_id: '',
    expire_time: info.expire_time,
    explicit_max_ttl: 0,
    id: token,
    issue_time: info.issue_time,
    last_renewal_time: info.last_renewal_time,
    meta: info.meta,
    num_uses: 0,
    orphan: true,
    path: 'auth/token/create',
    policies: info.policies,
    renewable: true,
    ttl: info.ttl,
    type: info.type,
  };
}

async function lookupSelf(req: VaultApiRequest, res: ServerResponse): Promise<void> {
  const caller = tokenCaller(req);
  const info = await initializedCluster(req).engine.perform(
    caller,
    {
      operation: 'READ',
      path: 'auth/token/lookup-self',
      capability: 'read',
      successStatus: 200,
      readOnly: true,
    },
    (operations) => operations.tokens.lookup(caller.token ?? ''),
  );
  send(res, 200, dataResponse(lookupBody(caller.token ?? '', info)));
}

/** The token auth method: create, and a token managing itself. */
export function tokenRoutes(router: WireRoutes<AddressedCluster>): void {
  router.post('/v1/auth/token/create', async (req, res) => {
    const caller = tokenCaller(req);
    const body = bodyOf(req);
    const requested = stringList(body, 'policies');
    const ttl = durationSeconds(body, 'ttl');
    const displayName = optionalString(body, 'display_name');
    const meta = metaOf(body);
    const token = await initializedCluster(req).engine.perform(
      caller,
      { operation: 'UPDATE', path: 'auth/token/create', capability: 'update', successStatus: 200 },
      async (operations) => {
        const parent = await operations.tokens.lookup(caller.token ?? '');
        return operations.createToken({
          display_name: displayName,
          ttl,
          policies: childPolicies(parent, requested),
          meta,
        });
      },
    );
    send(res, 200, authResponse(token));
  });

  router.get('/v1/auth/token/lookup-self', lookupSelf);
  router.post('/v1/auth/token/lookup-self', lookupSelf);

  router.post('/v1/auth/token/renew-self', async (req, res) => {
    const caller = tokenCaller(req);
    const increment = durationSeconds(bodyOf(req), 'increment');
    const info = await initializedCluster(req).engine.perform(
      caller,
      { operation: 'UPDATE', path: 'auth/token/renew-self', capability: 'update', successStatus: 200 },
      (operations) => operations.tokens.renew(caller.token ?? '', increment),
    );
    send(res, 200, authResponse({ ...info, client_token: caller.token ?? '' }));
  });

  router.post('/v1/auth/token/revoke-self', async (req, res) => {
    const caller = tokenCaller(req);
    await initializedCluster(req).engine.perform(
      caller,
      { operation: 'UPDATE', path: 'auth/token/revoke-self', capability: 'update', successStatus: 204 },
      (operations) => operations.tokens.revoke(caller.token ?? ''),
    );
    send(res, 204);
  });
}
