/**
 * Who may use a cluster's registry: a user of that cluster with HTTP Basic (name and password),
 * or a platform credential of the cluster's organization carrying `streaming:read` (reads) or
 * `streaming:write` (writes): an API key sent as the platform takes it (`Authorization: ApiKey …`
 * or `X-API-Key`), or a signed-in member's access token (`Authorization: Bearer …`, the console's
 * credential) with the scopes of their role. The cluster is found by its REST id in whichever
 * organization holds it.
 */
import type { IncomingMessage } from 'node:http';
import { organizationNamespace } from '../../accounts/organizations.js';
import type { Authenticator } from '../../accounts/principal.js';
import { isStoreError, type ObjectStore } from '../../control-plane/types.js';
import { STREAMING_CLUSTER, type StreamingCluster } from '../../crds/streaming.js';
import type { DataPlane } from '../../data-plane/data-plane.js';
import { clusterUserPasswordMatches, SchemaRegistryError } from '../../schema-registry/index.js';
import { objectNameOf } from '../../crds/ids.js';

const REST_ID = /^esc_[0-9a-f]{12}$/;
const PAGE_SIZE = 500;
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The cluster a request may use. */
export interface AccessedCluster {
  restId: string;
  namespace: string;
  name: string;
}

export interface RegistryAccessDependencies {
  store: ObjectStore;
  database: DataPlane;
  authenticator: Authenticator;
}

const unauthorized = (message: string) => new SchemaRegistryError(401, message);
const clusterNotFound = (id: string) => new SchemaRegistryError(404, `streaming cluster ${id} not found`);

function basicCredentials(req: IncomingMessage): { username: string; password: string } | undefined {
  const match = /^basic\s+(\S+)$/i.exec(req.headers.authorization?.trim() ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw unauthorized('malformed Basic credentials');
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export class RegistryAccess {
  /** Where each REST id was last found, confirmed with a get on every request. */
  private readonly namespaces = new Map<string, string>();

  constructor(private readonly deps: RegistryAccessDependencies) {}

  /** The cluster `restId` names, when the request's credentials may use it for its method. */
  async authorize(req: IncomingMessage, restId: string): Promise<AccessedCluster> {
    const basic = basicCredentials(req);
    if (basic) {
      const cluster = await this.find(restId);
      const valid =
        cluster !== undefined &&
        (await clusterUserPasswordMatches(
          this.deps.database,
          { namespace: cluster.namespace, cluster: cluster.name, username: basic.username },
          basic.password,
        ));
      if (!valid) throw unauthorized('invalid cluster user name or password');
      return cluster;
    }
    const hasPlatformCredential =
      req.headers['x-api-key'] !== undefined ||
      /^(apikey|bearer)\s/i.test(req.headers.authorization?.trim() ?? '');
    if (!hasPlatformCredential) {
      throw unauthorized('send a cluster user with HTTP Basic, a platform API key, or a bearer access token');
    }
    let principal;
    try {
      principal = await this.deps.authenticator(req);
    } catch (error) {
      throw unauthorized((error as Error).message);
    }
    if (!principal || principal.kind === 'system' || !principal.organizationId) {
      throw unauthorized('send a platform API key or access token of the cluster\u2019s organization');
    }
    const cluster = await this.find(restId);
    if (!cluster || cluster.namespace !== organizationNamespace(principal.organizationId)) {
      throw clusterNotFound(restId);
    }
    const scope = READ_METHODS.has(req.method ?? 'GET') ? 'streaming:read' : 'streaming:write';
    if (!principal.scopes.includes('*') && !principal.scopes.includes(scope)) {
      throw new SchemaRegistryError(403, `this operation requires the scope ${scope}`);
    }
    return cluster;
  }

  private async find(restId: string): Promise<AccessedCluster | undefined> {
    if (!REST_ID.test(restId)) return undefined;
    const name = objectNameOf(restId);
    const known = this.namespaces.get(restId);
    if (known !== undefined) {
      if (await this.exists(known, name)) return { restId, namespace: known, name };
      this.namespaces.delete(restId);
    }
    const found: string[] = [];
    let page: string | undefined;
    do {
      const list = await this.deps.store.list<StreamingCluster>(STREAMING_CLUSTER, {
        limit: PAGE_SIZE,
        continue: page,
      });
      for (const cluster of list.items) {
        if (cluster.metadata.name === name && cluster.spec && !cluster.metadata.deletionTimestamp) {
          found.push(cluster.metadata.namespace ?? '');
        }
      }
      page = list.continue;
    } while (page);
    // REST ids are random; two namespaces holding one would only come from kubectl, and then neither is meant.
    if (found.length !== 1) return undefined;
    this.namespaces.set(restId, found[0]!);
    return { restId, namespace: found[0]!, name };
  }

  private async exists(namespace: string, name: string): Promise<boolean> {
    try {
      const cluster = await this.deps.store.get<StreamingCluster>(STREAMING_CLUSTER, namespace, name);
      return Boolean(cluster.spec) && !cluster.metadata.deletionTimestamp;
    } catch (error) {
      if (isStoreError(error, 'NotFound')) return false;
      throw error;
    }
  }
}
