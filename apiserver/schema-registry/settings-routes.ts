/** `/config…` (compatibility levels) and `/mode…`, for the registry and per subject. */
import type { Router } from 'express';
import { addressedRegistry } from './addressed-registry.js';
import { bodyOf, flag, param, send } from './wire-format.js';

export function settingsRoutes(router: Router): void {
  router.get('/config', async (_req, res) => {
    send(res, 200, { compatibilityLevel: await addressedRegistry(res).globalCompatibility() });
  });
  router.put('/config', async (req, res) => {
    send(res, 200, {
      compatibility: await addressedRegistry(res).setCompatibility(undefined, bodyOf(req).compatibility),
    });
  });
  router.delete('/config', async (_req, res) => {
    send(res, 200, { compatibilityLevel: await addressedRegistry(res).deleteCompatibility(undefined) });
  });
  router.get('/config/:subject', async (req, res) => {
    const level = await addressedRegistry(res).subjectCompatibility(
      param(req, 'subject'),
      flag(req, 'defaultToGlobal'),
    );
    send(res, 200, { compatibilityLevel: level });
  });
  router.put('/config/:subject', async (req, res) => {
    const level = await addressedRegistry(res).setCompatibility(
      param(req, 'subject'),
      bodyOf(req).compatibility,
    );
    send(res, 200, { compatibility: level });
  });
  router.delete('/config/:subject', async (req, res) => {
    send(res, 200, {
      compatibilityLevel: await addressedRegistry(res).deleteCompatibility(param(req, 'subject')),
    });
  });

  router.get('/mode', async (_req, res) => {
    send(res, 200, { mode: await addressedRegistry(res).modeOf(undefined) });
  });
  router.put('/mode', async (req, res) => {
    send(res, 200, { mode: await addressedRegistry(res).setMode(undefined, bodyOf(req).mode) });
  });
  router.get('/mode/:subject', async (req, res) => {
    send(res, 200, {
      mode: await addressedRegistry(res).modeOf(param(req, 'subject'), flag(req, 'defaultToGlobal')),
    });
  });
  router.put('/mode/:subject', async (req, res) => {
    send(res, 200, { mode: await addressedRegistry(res).setMode(param(req, 'subject'), bodyOf(req).mode) });
  });
  router.delete('/mode/:subject', async (req, res) => {
    send(res, 200, { mode: await addressedRegistry(res).deleteMode(param(req, 'subject')) });
  });
}
