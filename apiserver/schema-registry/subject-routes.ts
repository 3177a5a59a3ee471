/** `/subjects…`: subjects, their versions, registration, lookup and deletes. */
import type { Response, Router } from 'express';
import { versionSpecOf } from '../../schema-registry/index.js';
import { addressedRegistry } from './addressed-registry.js';
import { bodyOf, flag, param, send, versionBody } from './wire-format.js';

export function subjectRoutes(router: Router): void {
  router.get('/subjects', async (req, res) => {
    send(res, 200, await addressedRegistry(res).subjects(flag(req, 'deleted')));
  });

  router.post('/subjects/:subject', async (req, res) => {
    const found = await addressedRegistry(res).lookup(
      param(req, 'subject'),
      bodyOf(req),
      flag(req, 'deleted'),
    );
    send(res, 200, versionBody(found));
  });

  router.delete('/subjects/:subject', async (req, res) => {
    send(res, 200, await addressedRegistry(res).deleteSubject(param(req, 'subject'), flag(req, 'permanent')));
  });

  router.get('/subjects/:subject/versions', async (req, res) => {
    send(res, 200, await addressedRegistry(res).versionNumbers(param(req, 'subject'), flag(req, 'deleted')));
  });

  router.post('/subjects/:subject/versions', async (req, res) => {
    send(res, 200, await addressedRegistry(res).register(param(req, 'subject'), bodyOf(req)));
  });

  router.get('/subjects/:subject/versions/:version', async (req, res) => {
    const spec = versionSpecOf(param(req, 'version'));
    const found = await addressedRegistry(res).version(param(req, 'subject'), spec, flag(req, 'deleted'));
    send(res, 200, versionBody(found));
  });

  router.get('/subjects/:subject/versions/:version/schema', async (req, res) => {
    const spec = versionSpecOf(param(req, 'version'));
    const found = await addressedRegistry(res).version(param(req, 'subject'), spec, flag(req, 'deleted'));
    sendSchemaText(res, found.schemaType, found.schema);
  });

  router.get('/subjects/:subject/versions/:version/referencedby', async (req, res) => {
    const spec = versionSpecOf(param(req, 'version'));
    send(res, 200, await addressedRegistry(res).referencedBy(param(req, 'subject'), spec));
  });

  router.delete('/subjects/:subject/versions/:version', async (req, res) => {
    const spec = versionSpecOf(param(req, 'version'));
    const deleted = await addressedRegistry(res).deleteVersion(
      param(req, 'subject'),
      spec,
      flag(req, 'permanent'),
    );
    send(res, 200, deleted);
  });
}

/** The schema alone: JSON for Avro and JSON Schema, the .proto text for Protobuf. */
export function sendSchemaText(res: Response, schemaType: string, schema: string): void {
  if (schemaType === 'PROTOBUF') {
    res.status(200).type('text/plain').send(schema);
    return;
  }
  res.status(200).type('application/vnd.schemaregistry.v1+json').send(schema);
}
