/** `/compatibility/subjects/:subject/versions[/:version]`: would this schema be accepted? */
import type { Request, Response, Router } from 'express';
import { versionSpecOf, type VersionSpec } from '../../schema-registry/index.js';
import { addressedRegistry } from './addressed-registry.js';
import { bodyOf, flag, param, send } from './wire-format.js';

async function answer(req: Request, res: Response, spec: VersionSpec | undefined): Promise<void> {
  const problems = await addressedRegistry(res).test(param(req, 'subject'), spec, bodyOf(req));
  send(res, 200, {
    is_compatible: problems.length === 0,
    ...(flag(req, 'verbose') ? { messages: problems } : {}),
  });
}

export function compatibilityRoutes(router: Router): void {
  router.post('/compatibility/subjects/:subject/versions', (req, res) => answer(req, res, undefined));
  router.post('/compatibility/subjects/:subject/versions/:version', (req, res) =>
    answer(req, res, versionSpecOf(param(req, 'version'))),
  );
}
