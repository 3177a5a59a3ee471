import type { ServerResponse } from 'node:http';
import type { WireRoutes } from '../routing/wire-api.js';
import type { AddressedCluster } from './cluster-directory.js';
import type { Policy } from '../../vault/policy-store.js';
import { VaultError } from '../../vault/vault-error.js';
import { initializedCluster } from './sys-routes.js';
import {
  bodyOf,
  dataResponse,
  isList,
  optionalString,
  param,
  send,
  tokenCaller,
  type VaultApiRequest,
} from './wire-format.js';

/** The rules of a policy write: `policy` (sys/policies/acl) or `rules` (the older sys/policy). */
function rulesOf(req: VaultApiRequest): string {
  const body = bodyOf(req);
  const rules = optionalString(body, 'policy') ?? optionalString(body, 'rules');
  if (rules === undefined) throw new VaultError('invalid', "'policy' parameter not supplied or empty");
  return rules;
}

async function listPolicies(req: VaultApiRequest): Promise<string[]> {
  const policies = await initializedCluster(req).engine.perform(
    tokenCaller(req),
    { operation: 'LIST', path: 'sys/policies/acl', capability: 'list', successStatus: 200, readOnly: true },
    (operations) => operations.policies.list(),
  );
  return policies.map((policy) => policy.name);
}

async function readPolicy(req: VaultApiRequest): Promise<Policy> {
  const name = param(req, 'name');
  return initializedCluster(req).engine.perform(
    tokenCaller(req),
    {
      operation: 'READ',
      path: `sys/policies/acl/${name}`,
      capability: 'read',
      successStatus: 200,
      readOnly: true,
    },
    (operations) => operations.policies.read(name),
  );
}

async function writePolicy(req: VaultApiRequest, res: ServerResponse): Promise<void> {
  const name = param(req, 'name');
  const rules = rulesOf(req);
  await initializedCluster(req).engine.perform(
    tokenCaller(req),
    { operation: 'UPDATE', path: `sys/policies/acl/${name}`, capability: 'update', successStatus: 204 },
    (operations) => operations.policies.write(name, rules),
  );
  send(res, 204);
}

async function deletePolicy(req: VaultApiRequest, res: ServerResponse): Promise<void> {
  const name = param(req, 'name');
  await initializedCluster(req).engine.perform(
    tokenCaller(req),
    { operation: 'DELETE', path: `sys/policies/acl/${name}`, capability: 'delete', successStatus: 204 },
    (operations) => operations.policies.delete(name),
  );
  send(res, 204);
}

/**
 * ACL policies at `sys/policies/acl` and at the older `sys/policy` that node-vault's policy
 * commands use. Both are authorised against `sys/policies/acl/<name>`, so one rule governs both.
 */
export function policyRoutes(router: WireRoutes<AddressedCluster>): void {
  router.get('/v1/sys/policies/acl', async (req, res) => {
    if (!isList(req)) throw new VaultError('invalid', 'list the policies with ?list=true');
    send(res, 200, dataResponse({ keys: await listPolicies(req) }));
  });
  router.get('/v1/sys/policies/acl/:name', async (req, res) => {
    const policy = await readPolicy(req);
    send(res, 200, dataResponse({ name: policy.name, policy: policy.rules }));
  });
  router.put('/v1/sys/policies/acl/:name', writePolicy);
  router.post('/v1/sys/policies/acl/:name', writePolicy);
  router.delete('/v1/sys/policies/acl/:name', deletePolicy);

  router.get('/v1/sys/policy', async (req, res) => {
    const names = await listPolicies(req);
    send(res, 200, { ...dataResponse({ keys: names, policies: names }), keys: names, policies: names });
  });
  router.get('/v1/sys/policy/:name', async (req, res) => {
    const policy = await readPolicy(req);
    const fields = { name: policy.name, rules: policy.rules };
    send(res, 200, { ...dataResponse(fields), ...fields });
  });
  router.put('/v1/sys/policy/:name', writePolicy);
  router.post('/v1/sys/policy/:name', writePolicy);
  router.delete('/v1/sys/policy/:name', deletePolicy);
}
