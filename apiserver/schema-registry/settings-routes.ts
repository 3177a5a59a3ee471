/** `/config…` (compatibility levels) and `/mode…`, for the registry and per subject. */
import type { ClusterRegistry } from '../../schema-registry/index.js';
import type { WireRoutes } from '../routing/wire-api.js';
import { bodyOf, flag, param, send } from './wire-format.js';

export function settingsRoutes(router: WireRoutes<ClusterRegistry>): void {
  router.get('/config', async (req, res) => {
    send(res, 200, { compatibilityLevel: await req.locals.globalCompatibility() });
  });
  router.put('/config', async (req, res) => {
    send(res, 200, {
      compatibility: await req.locals.setCompatibility(undefined, bodyOf(req).compatibility),
    });
  });
  router.delete('/config', async (req, res) => {
    send(res, 200, { compatibilityLevel: await req.locals.deleteCompatibility(undefined) });
  });
  router.get('/config/:subject', async (req, res) => {
    const level = await req.locals.subjectCompatibility(param(req, 'subject'), flag(req, 'defaultToGlobal'));
    send(res, 200, { compatibilityLevel: level });
  });
  router.put('/config/:subject', async (req, res) => {
    const level = await req.locals.setCompatibility(param(req, 'subject'), bodyOf(req).compatibility);
    send(res, 200, { compatibility: level });
  });
  router.delete('/config/:subject', async (req, res) => {
    send(res, 200, {
      compatibilityLevel: await req.locals.deleteCompatibility(param(req, 'subject')),
    });
  });

  router.get('/mode', async (req, res) => {
    send(res, 200, { mode: await req.locals.modeOf(undefined) });
  });
  router.put('/mode', async (req, res) => {
    send(res, 200, { mode: await req.locals.setMode(undefined, bodyOf(req).mode) });
  });
  router.get('/mode/:subject', async (req, res) => {
    send(res, 200, {
      mode: await req.locals.modeOf(param(req, 'subject'), flag(req, 'defaultToGlobal')),
    });
  });
  router.put('/mode/:subject', async (req, res) => {
    send(res, 200, { mode: await req.locals.setMode(param(req, 'subject'), bodyOf(req).mode) });
  });
  router.delete('/mode/:subject', async (req, res) => {
    send(res, 200, { mode: await req.locals.deleteMode(param(req, 'subject')) });
  });
}
