import type { Request, Response, Router } from 'express';
import type { Policy } from '../../vault/policy-store.js';
import { VaultError } from '../../vault/vault-error.js';
import { initializedCluster } from './sys-routes.js';
import { bodyOf, dataResponse, isList, optionalString, param, send, tokenCaller } from './wire-format.js';

/** The rules of a policy write: `policy` (sys/policies/acl) or `rules` (the older sys/policy). */
function rulesOf(req: Request): string {
  const body = bodyOf(req);
  const rules = optionalString(body, 'policy') ?? optionalString(body, 'rules');
  if (rules === undefined) throw new VaultError('invalid', "'policy' parameter not supplied or empty");
  return rules;
}

async function listPolicies(req: Request, res: Response): Promise<string[]> {
  const policies = await initializedCluster(res).engine.perform(
    tokenCaller(req),
    { operation: 'LIST', path: 'sys/policies/acl', capability: 'list', successStatus: 200, readOnly: true },
    (operations) => operations.policies.list(),
  );
  return policies.map((policy) => policy.name);
}

async function readPolicy(req: Request, res: Response): Promise<Policy> {
  const name = param(req, 'name');
  return initializedCluster(res).engine.perform(
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

async function writePolicy(req: Request, res: Response): Promise<void> {
  const name = param(req, 'name');
  const rules = rulesOf(req);
  await initializedCluster(res).engine.perform(
    tokenCaller(req),
    { operation: 'UPDATE', path: `sys/policies/acl/${name}`, capability: 'update', successStatus: 204 },
    (operations) => operations.policies.write(name, rules),
  );
  send(res, 204);
}

async function deletePolicy(req: Request, res: Response): Promise<void> {
  const name = param(req, 'name');
  await initializedCluster(res).engine.perform(
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
export function policyRoutes(router: Router): void {
  router.get('/v1/sys/policies/acl', async (req, res) => {
    if (!isList(req)) throw new VaultError('invalid', 'list the policies with ?list=true');
    send(res, 200, dataResponse({ keys: await listPolicies(req, res) }));
  });
  router.get('/v1/sys/policies/acl/:name', async (req, res) => {
    const policy = await readPolicy(req, res);
    send(res, 200, dataResponse({ name: policy.name, policy: policy.rules }));
  });
  router.put('/v1/sys/policies/acl/:name', writePolicy);
  router.post('/v1/sys/policies/acl/:name', writePolicy);
  router.delete('/v1/sys/policies/acl/:name', deletePolicy);

  router.get('/v1/sys/policy', async (req, res) => {
    const names = await listPolicies(req, res);
    send(res, 200, { ...dataResponse({ keys: names, policies: names }), keys: names, policies: names });
  });
  router.get('/v1/sys/policy/:name', async (req, res) => {
    const policy = await readPolicy(req, res);
    const fields = { name: policy.name, rules: policy.rules };
    send(res, 200, { ...dataResponse(fields), ...fields });
  });
  router.put('/v1/sys/policy/:name', writePolicy);
  router.post('/v1/sys/policy/:name', writePolicy);
  router.delete('/v1/sys/policy/:name', deletePolicy);
}
