/** `/compatibility/subjects/:subject/versions[/:version]`: would this schema be accepted? */
import type { ServerResponse } from 'node:http';
import { versionSpecOf, type ClusterRegistry, type VersionSpec } from '../../schema-registry/index.js';
import type { WireRoutes } from '../routing/wire-api.js';
import { bodyOf, flag, param, send, type RegistryRequest } from './wire-format.js';

async function answer(
  req: RegistryRequest,
  res: ServerResponse,
  spec: VersionSpec | undefined,
): Promise<void> {
  const problems = await req.locals.test(param(req, 'subject'), spec, bodyOf(req));
  send(res, 200, {
    is_compatible: problems.length === 0,
    ...(flag(req, 'verbose') ? { messages: problems } : {}),
  });
}

export function compatibilityRoutes(router: WireRoutes<ClusterRegistry>): void {
  router.post('/compatibility/subjects/:subject/versions', (req, res) => answer(req, res, undefined));
  router.post('/compatibility/subjects/:subject/versions/:version', (req, res) =>
    answer(req, res, versionSpecOf(param(req, 'version'))),
  );
}
