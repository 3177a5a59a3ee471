import type { Response } from 'express';
import type { ClusterRegistry } from '../../schema-registry/index.js';

/** The registry of the cluster the request addresses, set once it was authorized. */
export function addressedRegistry(res: Response): ClusterRegistry {
  return res.locals.schemaRegistry as ClusterRegistry;
}
