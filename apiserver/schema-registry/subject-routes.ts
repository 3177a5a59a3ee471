/** `/subjects…`: subjects, their versions, registration, lookup and deletes. */
import type { ServerResponse } from 'node:http';
import { versionSpecOf, type ClusterRegistry } from '../../schema-registry/index.js';
import type { WireRoutes } from '../routing/wire-api.js';
import { bodyOf, CONTENT_TYPE, flag, param, send, sendText, versionBody } from './wire-format.js';

export function subjectRoutes(router: WireRoutes<ClusterRegistry>): void {
  router.get('/subjects', async (req, res) => {
    send(res, 200, await req.locals.subjects(flag(req, 'deleted')));
  });

  router.post('/subjects/:subject', async (req, res) => {
    const found = await req.locals.lookup(param(req, 'subject'), bodyOf(req), flag(req, 'deleted'));
    send(res, 200, versionBody(found));
  });

  router.delete('/subjects/:subject', async (req, res) => {
    send(res, 200, await req.locals.deleteSubject(param(req, 'subject'), flag(req, 'permanent')));
  });

  router.get('/subjects/:subject/versions', async (req, res) => {
    send(res, 200, await req.locals.versionNumbers(param(req, 'subject'), flag(req, 'deleted')));
  });

  router.post('/subjects/:subject/versions', async (req, res) => {
    send(res, 200, await req.locals.register(param(req, 'subject'), bodyOf(req)));
  });

  router.get('/subjects/:subject/versions/:version', async (req, res) => {
    const spec = versionSpecOf(param(req, 'version'));
    const found = await req.locals.version(param(req, 'subject'), spec, flag(req, 'deleted'));
    send(res, 200, versionBody(found));
  });

  router.get('/subjects/:subject/versions/:version/schema', async (req, res) => {
    const spec = versionSpecOf(param(req, 'version'));
    const found = await req.locals.version(param(req, 'subject'), spec, flag(req, 'deleted'));
    sendSchemaText(res, found.schemaType, found.schema);
  });

  router.get('/subjects/:subject/versions/:version/referencedby', async (req, res) => {
    const spec = versionSpecOf(param(req, 'version'));
    send(res, 200, await req.locals.referencedBy(param(req, 'subject'), spec));
  });

  router.delete('/subjects/:subject/versions/:version', async (req, res) => {
    const spec = versionSpecOf(param(req, 'version'));
    const deleted = await req.locals.deleteVersion(param(req, 'subject'), spec, flag(req, 'permanent'));
    send(res, 200, deleted);
  });
}

/** The schema alone: JSON for Avro and JSON Schema, the .proto text for Protobuf. */
export function sendSchemaText(res: ServerResponse, schemaType: string, schema: string): void {
  sendText(res, 200, schemaType === 'PROTOBUF' ? 'text/plain' : CONTENT_TYPE, schema);
}
