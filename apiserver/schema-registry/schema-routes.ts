/** `/schemas…`: schemas by their cluster-wide id, and the types the registry knows. */
import { SCHEMA_TYPES, type ClusterRegistry } from '../../schema-registry/index.js';
import type { WireRoutes } from '../routing/wire-api.js';
import { sendSchemaText } from './subject-routes.js';
import { flag, param, schemaIdOf, send } from './wire-format.js';

export function schemaRoutes(router: WireRoutes<ClusterRegistry>): void {
  router.get('/schemas/types', (_req, res) => {
    send(res, 200, [...SCHEMA_TYPES]);
  });

  router.get('/schemas/ids/:id', async (req, res) => {
    const schema = await req.locals.schemaById(schemaIdOf(param(req, 'id')));
    send(res, 200, {
      ...(schema.schemaType === 'AVRO' ? {} : { schemaType: schema.schemaType }),
      ...(schema.references.length > 0 ? { references: schema.references } : {}),
      schema: schema.schema,
    });
  });

  router.get('/schemas/ids/:id/schema', async (req, res) => {
    const schema = await req.locals.schemaById(schemaIdOf(param(req, 'id')));
    sendSchemaText(res, schema.schemaType, schema.schema);
  });

  router.get('/schemas/ids/:id/versions', async (req, res) => {
    const registry = req.locals;
    send(res, 200, await registry.versionsOfSchema(schemaIdOf(param(req, 'id')), flag(req, 'deleted')));
  });

  router.get('/schemas/ids/:id/subjects', async (req, res) => {
    const versions = await req.locals.versionsOfSchema(schemaIdOf(param(req, 'id')), flag(req, 'deleted'));
    send(res, 200, [...new Set(versions.map((version) => version.subject))]);
  });
}
