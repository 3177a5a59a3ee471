import { createHash } from 'node:crypto';
import { cloneJson, isJsonObject, type JsonObject } from '../json-value.js';
import type { ResourceCatalog, ServedResource } from './served-resources.js';

/**
 * The OpenAPI documents kubectl reads: v3 per group version (`kubectl explain`, and whether the
 * server validates fields itself, found from the PATCH operation's `fieldValidation` parameter)
 * and v2 for older clients. Kind schemas are the CRDs' openAPIV3Schema.
 *
 * Unlike kube-apiserver's, a v3 group-version document holds the kinds' schemas and the PATCH
 * operation of each kind's object only; /openapi/v2 keeps every operation. kubectl
 * 1.33 with client-side validation parses the whole group-version document again for every
 * object it applies (it keeps the document's bytes, not what it parsed), only to find the PATCH
 * operation's `fieldValidation` parameter, so each operation more is paid once per object. The
 * kind schemas stay whole (descriptions, x-kubernetes-* and group-version-kind extensions) for
 * `kubectl explain` and the type information of server-side apply; the list kinds, ListMeta and
 * Status, referred to only by the other operations, go with them.
 */

type Flavor = 'v2' | 'v3';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
const STATUS = 'io.k8s.apimachinery.pkg.apis.meta.v1.Status';
const PATCH = 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch';

const DESCRIPTIONS = {
  apiVersion:
    'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
  kind: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. In CamelCase.',
  metadata: "Standard object's metadata.",
  listMetadata: 'Standard list metadata.',
};

function ref(flavor: Flavor, name: string): JsonObject {
  return { $ref: flavor === 'v3' ? `#/components/schemas/${name}` : `#/definitions/${name}` };
}

/** `dev.cloudplane.v1alpha1.Vpc`; built-in groups as Kubernetes names them: `io.k8s.api.coordination.v1.Lease`. */
export function definitionName(descriptor: { group: string; version: string; kind: string }): string {
  const { group, version, kind } = descriptor;
  let prefix: string;
  if (group === '') prefix = 'io.k8s.api.core';
  else if (group.endsWith('.k8s.io')) prefix = `io.k8s.api.${group.split('.')[0] ?? group}`;
  else prefix = group.split('.').reverse().join('.');
  return `${prefix}.${version}.${kind}`;
}

function stringMap(description: string): JsonObject {
  return { type: 'object', description, additionalProperties: { type: 'string' } };
}

/** ObjectMeta, ListMeta, Status and the patch body; the v3 documents take what they refer to. */
function metaSchemas(): Record<string, JsonObject> {
  const text = (description: string): JsonObject => ({ type: 'string', description });
  return {
    [OBJECT_META]: {
      description: 'ObjectMeta is metadata that all persisted resources must have.',
      type: 'object',
      properties: {
        name: text('Name must be unique within a namespace.'),
        generateName: text(
          'An optional prefix the server uses to generate a unique name when name is not given.',
        ),
        namespace: text('The namespace the object belongs to; empty for cluster-scoped objects.'),
        uid: text('The unique identifier of this object, set by the server.'),
        resourceVersion: text(
          'An opaque value that changes with every write; used for optimistic concurrency and watches.',
        ),
        generation: {
          type: 'integer',
          format: 'int64',
          description: 'A sequence number of the desired state; it changes with the spec.',
        },
        creationTimestamp: text('When the object was created, set by the server.'),
        deletionTimestamp: text(
          'When deletion was requested; the object goes once its finalizers are removed.',
        ),
        labels: stringMap('Map of string keys and values used to organize and select objects.'),
        annotations: stringMap('Unstructured key value map stored with the object.'),
        finalizers: {
          type: 'array',
          items: { type: 'string' },
          description: 'Must be empty before the object is deleted.',
        },
        ownerReferences: {
          type: 'array',
          description: 'Objects this object depends on; it is garbage collected when they are all gone.',
          items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
        managedFields: {
          type: 'array',
          description: 'Which field manager owns which fields, as server-side apply records it.',
          items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
    [LIST_META]: {
      description: 'ListMeta describes metadata that synthetic resources must have.',
      type: 'object',
      properties: {
        resourceVersion: text('The revision the list was read at; watch from it to miss nothing.'),
        continue: text('Set when more items follow; pass it back to read the next page.'),
      },
    },
    [STATUS]: {
      description: 'Status is a return value for calls that do not return other objects.',
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    },
    [PATCH]: {
      description: 'The body of a patch: a JSON patch, a JSON merge patch or an apply configuration.',
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    },
  };
}

/** Copies an OpenAPI v3 schema as OpenAPI v2 (Swagger) has it: without `nullable` and the combinators. */
function asV2(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(asV2);
  if (!isJsonObject(schema)) return schema;
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (['nullable', 'anyOf', 'oneOf', 'not', 'allOf', 'x-kubernetes-validations'].includes(key)) continue;
    copy[key] = key === 'enum' || key === 'default' || key === 'example' ? value : asV2(value);
  }
  return copy;
}

function kindSchema(resource: ServedResource, flavor: Flavor): JsonObject {
  const { descriptor } = resource;
  const base = descriptor.schema
    ? (cloneJson(descriptor.schema) as JsonObject)
    : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const schema = (flavor === 'v2' ? asV2(base) : base) as JsonObject;
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  properties.apiVersion = { type: 'string', description: DESCRIPTIONS.apiVersion };
  properties.kind = { type: 'string', description: DESCRIPTIONS.kind };
  properties.metadata =
    flavor === 'v3'
      ? { allOf: [ref(flavor, OBJECT_META)], description: DESCRIPTIONS.metadata }
      : { ...ref(flavor, OBJECT_META), description: DESCRIPTIONS.metadata };
  schema.properties = properties;
  schema['x-kubernetes-group-version-kind'] = [
    { group: descriptor.group, version: descriptor.version, kind: descriptor.kind },
  ];
  return schema;
}

function listSchema(resource: ServedResource, flavor: Flavor): JsonObject {
  const { descriptor } = resource;
  return {
    description: `${descriptor.kind}List is a list of ${descriptor.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: DESCRIPTIONS.apiVersion },
      items: { type: 'array', items: ref(flavor, definitionName(descriptor)) },
      kind: { type: 'string', description: DESCRIPTIONS.kind },
      metadata: { ...ref(flavor, LIST_META), description: DESCRIPTIONS.listMetadata },
    },
    'x-kubernetes-group-version-kind': [
      { group: descriptor.group, version: descriptor.version, kind: `${descriptor.kind}List` },
    ],
  };
}

const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/apply-patch+yaml',
];

const WRITE_PARAMETERS = ['dryRun', 'fieldManager', 'fieldValidation'];
const QUERY_PARAMETERS: Record<string, string[]> = {
  list: [
    'allowWatchBookmarks',
    'continue',
    'fieldSelector',
    'labelSelector',
    'limit',
    'resourceVersion',
    'timeoutSeconds',
    'watch',
  ],
  get: [],
  post: WRITE_PARAMETERS,
  put: WRITE_PARAMETERS,
  patch: [...WRITE_PARAMETERS, 'force'],
  delete: ['dryRun', 'gracePeriodSeconds', 'propagationPolicy'],
  deletecollection: ['dryRun', 'fieldSelector', 'labelSelector', 'propagationPolicy'],
};
function parameter(flavor: Flavor, name: string, where: 'query' | 'path'): JsonObject {
  const type = ['limit', 'timeoutSeconds', 'gracePeriodSeconds'].includes(name)
    ? 'integer'
    : ['watch', 'allowWatchBookmarks', 'force'].includes(name)
      ? 'boolean'
      : 'string';
  const entry: JsonObject = { name, in: where };
  if (where === 'path') entry.required = true;
  if (flavor === 'v3') entry.schema = { type };
  else entry.type = type;
  return entry;
}

/**
 * A query parameter named once in the v2 document's shared parameters and referred to from each
 * operation. PATCH keeps its own inline (and is the only operation of a v3 document): kubectl
 * finds whether the server validates fields by reading the PATCH operation's parameters by
 * name, and does not follow a v3 `$ref` there.
 */
function queryParameter(flavor: Flavor, action: string, name: string): JsonObject {
  if (action === 'patch') return parameter(flavor, name, 'query');
  return { $ref: `#/parameters/${name}` };
}

/** Every query parameter an operation refers to, as the v2 document's shared parameters. */
function sharedParameters(): Record<string, JsonObject> {
  const names = new Set(Object.values(QUERY_PARAMETERS).flat());
  return Object.fromEntries([...names].map((name) => [name, parameter('v2', name, 'query')]));
}

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]/)
    .filter(Boolean)
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join('');
}

function operation(
  flavor: Flavor,
  resource: ServedResource,
  action: string,
  namespaced: boolean,
  responseDefinition: string,
  suffix = '',
): JsonObject {
  const { descriptor } = resource;
  const scope = namespaced ? 'Namespaced' : '';
  const entry: JsonObject = {
    operationId: `${action}${pascal(descriptor.group || 'core')}${pascal(descriptor.version)}${scope}${descriptor.kind}${suffix}`,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': {
      group: descriptor.group,
      version: descriptor.version,
      kind: descriptor.kind,
    },
  };
  const parameters = (QUERY_PARAMETERS[action] ?? []).map((name) => queryParameter(flavor, action, name));
  if (parameters.length > 0) entry.parameters = parameters;
  const schema = ref(flavor, responseDefinition);
  entry.responses =
    flavor === 'v3'
      ? { '200': { description: 'OK', content: { 'application/json': { schema } } } }
      : { '200': { description: 'OK', schema } };
  if (flavor === 'v3') {
    if (action === 'patch') entry.requestBody = { $ref: `#/components/requestBodies/${PATCH}` };
  } else if (action === 'post' || action === 'put' || action === 'patch') {
    const body = ref(flavor, action === 'patch' ? PATCH : definitionName(descriptor));
    entry.parameters = [{ name: 'body', in: 'body', required: true, schema: body }, ...parameters];
    entry.consumes = action === 'patch' ? PATCH_TYPES : ['application/json'];
  }
  return entry;
}

/** `/apis/<group>/<version>`, or `/api/v1`; and below it the namespace's, for a namespaced kind. */
function scopePaths(resource: ServedResource): { root: string; scope: string } {
  const { group, version, namespaced } = resource.descriptor;
  const root = group ? `/apis/${group}/${version}` : `/api/${version}`;
  return { root, scope: namespaced ? `${root}/namespaces/{namespace}` : root };
}

function scopeParameters(resource: ServedResource, flavor: Flavor): JsonObject[] {
  return resource.descriptor.namespaced ? [parameter(flavor, 'namespace', 'path')] : [];
}

function itemParameters(resource: ServedResource, flavor: Flavor): JsonObject[] {
  return [...scopeParameters(resource, flavor), parameter(flavor, 'name', 'path')];
}

/**
 * The paths of one resource, every operation, as the v2 document lists them. Path parameters are
 * the path item's, shared by its operations, as kube-apiserver writes them.
 */
function resourcePaths(resource: ServedResource, flavor: Flavor): Record<string, JsonObject> {
  const { descriptor } = resource;
  const { root, scope } = scopePaths(resource);
  const namespaced = descriptor.namespaced;
  const kind = definitionName(descriptor);
  const list = `${kind}List`;
  const op = (action: string, response: string, suffix = '', inNamespace = namespaced) =>
    operation(flavor, resource, action, inNamespace, response, suffix);
  const paths: Record<string, JsonObject> = {
    [`${scope}/${descriptor.plural}`]: {
      get: op('list', list),
      post: op('post', kind),
      delete: op('deletecollection', STATUS),
      ...(namespaced ? { parameters: scopeParameters(resource, flavor) } : {}),
    },
    [`${scope}/${descriptor.plural}/{name}`]: {
      get: op('get', kind),
      put: op('put', kind),
      patch: op('patch', kind),
      delete: op('delete', STATUS),
      parameters: itemParameters(resource, flavor),
    },
  };
  if (resource.hasStatus) {
    paths[`${scope}/${descriptor.plural}/{name}/status`] = {
      get: op('get', kind, 'Status'),
      put: op('put', kind, 'Status'),
      patch: op('patch', kind, 'Status'),
      parameters: itemParameters(resource, flavor),
    };
  }
  if (namespaced) {
    paths[`${root}/${descriptor.plural}`] = { get: op('list', list, 'ForAllNamespaces', false) };
  }
  return paths;
}

/**
 * The PATCH operation of one resource's object, all a v3 document lists of it: kubectl looks up a
 * kind's `fieldValidation` there, never on `/status` (whose PATCH is in v2). A kind that answers
 * no patch (the reviews) lists nothing.
 */
function patchPaths(resource: ServedResource): Record<string, JsonObject> {
  if (!resource.verbs.includes('patch')) return {};
  const item = `${scopePaths(resource).scope}/${resource.descriptor.plural}/{name}`;
  const parameters = [
    ...(resource.descriptor.namespaced ? [{ $ref: '#/components/parameters/namespace' }] : []),
    { $ref: '#/components/parameters/name' },
  ];
  const kind = definitionName(resource.descriptor);
  return {
    [item]: { patch: operation('v3', resource, 'patch', resource.descriptor.namespaced, kind), parameters },
  };
}

/**
 * Names the item schema of `status.conditions` once, as `<group>.<version>.Condition`, and refers
 * to it from every kind whose conditions have that same schema, as kube-apiserver refers to its
 * shared types: kubectl parses the document once per object applied.
 */
function shareConditions(resources: readonly ServedResource[], schemas: Record<string, JsonObject>): void {
  let shared: { name: string; text: string } | undefined;
  for (const resource of resources) {
    const status = schemas[definitionName(resource.descriptor)]?.properties;
    const statusSchema = isJsonObject(status) ? status.status : undefined;
    const conditions =
      isJsonObject(statusSchema) && isJsonObject(statusSchema.properties)
        ? statusSchema.properties.conditions
        : undefined;
    if (!isJsonObject(conditions) || !isJsonObject(conditions.items)) continue;
    const text = JSON.stringify(conditions.items);
    if (!shared) {
      shared = { name: definitionName({ ...resource.descriptor, kind: 'Condition' }), text };
      schemas[shared.name] = conditions.items;
    }
    if (text === shared.text) conditions.items = ref('v3', shared.name);
  }
}

function documentFor(resources: readonly ServedResource[], flavor: Flavor, title: string): JsonObject {
  const meta = metaSchemas();
  const schemas: Record<string, JsonObject> =
    flavor === 'v3' ? { [OBJECT_META]: meta[OBJECT_META]!, [PATCH]: meta[PATCH]! } : meta;
  const paths: Record<string, JsonObject> = {};
  for (const resource of resources) {
    const name = definitionName(resource.descriptor);
    schemas[name] = kindSchema(resource, flavor);
    if (flavor === 'v2') schemas[`${name}List`] = listSchema(resource, flavor);
    Object.assign(paths, flavor === 'v3' ? patchPaths(resource) : resourcePaths(resource, flavor));
  }
  const info = { title, version: 'v0.1.0' };
  if (flavor === 'v3') {
    shareConditions(resources, schemas);
    const requestBodies = {
      [PATCH]: {
        required: true,
        content: Object.fromEntries(PATCH_TYPES.map((type) => [type, { schema: ref('v3', PATCH) }])),
      },
    };
    const parameters = {
      namespace: parameter('v3', 'namespace', 'path'),
      name: parameter('v3', 'name', 'path'),
    };
    return { openapi: '3.0.0', info, paths, components: { schemas, requestBodies, parameters } };
  }
  return {
    swagger: '2.0',
    info,
    paths,
    definitions: asV2(schemas) as JsonObject,
    parameters: sharedParameters(),
  };
}

/** A v3 document as served: its JSON text and the hash that names this content. */
export interface ServedDocument {
  body: string;
  hash: string;
}

function served(document: JsonObject): ServedDocument {
  const body = JSON.stringify(document);
  const hash = createHash('sha512').update(body).digest('hex').slice(0, 64).toUpperCase();
  return { body, hash };
}

/**
 * Builds each document once: the served kinds do not change while the process runs. The v3
 * index names each group version's document with the hash of its content, so a client may keep
 * it for good and fetch again only when the index names another hash, as kube-apiserver does.
 */
export class OpenApiDocuments {
  private v2: JsonObject | undefined;
  private readonly v3 = new Map<string, ServedDocument>();
  private v3Index: ServedDocument | undefined;

  constructor(private readonly catalog: ResourceCatalog) {}

  swagger(): JsonObject {
    this.v2 ??= documentFor(this.catalog.all(), 'v2', 'cloudplane Kubernetes API');
    return this.v2;
  }

  /** The v3 index: one entry per group version, `api/v1` and `apis/<group>/<version>`. */
  index(): ServedDocument {
    if (this.v3Index) return this.v3Index;
    const paths: Record<string, JsonObject> = {};
    const entries = [
      'api/v1',
      ...this.catalog
        .groups()
        .flatMap((group) => group.versions.map((version) => `apis/${group.name}/${version}`)),
    ];
    for (const entry of entries) {
      const document = this.groupVersion(entry);
      if (!document) continue;
      paths[entry] = { serverRelativeURL: `/openapi/v3/${entry}?hash=${document.hash}` };
    }
    this.v3Index = served({ paths });
    return this.v3Index;
  }

  /** The v3 document of `api/v1` or `apis/<group>/<version>`; undefined for one not served. */
  groupVersion(path: string): ServedDocument | undefined {
    const cached = this.v3.get(path);
    if (cached) return cached;
    const match = /^(?:api\/(v1)|apis\/([^/]+)\/([^/]+))$/.exec(path);
    if (!match) return undefined;
    const group = match[2] ?? '';
    const version = match[1] ?? match[3] ?? '';
    if (!this.catalog.servesGroupVersion(group, version)) return undefined;
    const document = served(
      documentFor(this.catalog.resourcesOf(group, version), 'v3', `cloudplane ${path}`),
    );
    this.v3.set(path, document);
    return document;
  }
}
