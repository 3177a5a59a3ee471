import { encodeContinue } from '../continue-token.js';
import type { KubeObject, ObjectList, Watch, WatchEvent } from '../types.js';
import { KubeApiError } from './kube-status.js';
import {
  authorize,
  presented,
  sendList,
  sendObject,
  visibleTo,
  type ApiContext,
  type ResourceCall,
} from './api-context.js';
import { parseFieldSelector } from './field-selector.js';
import { negotiate } from './media-types.js';
import {
  labelSelectorOf,
  limitOf,
  queryBoolean,
  queryValue,
  resourceVersionMatchOf,
  sendsInitialEvents,
  timeoutSecondsOf,
  watchResourceVersionOf,
} from './request-options.js';
import type { ServedResource } from './served-resources.js';
import { includeObjectOf, partialObjectMetadata, tableOf } from './table.js';
import { streamWatch } from './watch-response.js';

/** Store pages read while filtering a list; the client's `limit` is applied to what passes the filter. */
const STORE_PAGE = 500;

export interface ListQuery {
  namespace: string | undefined;
  labelSelector: string | undefined;
  limit: number;
  continue: string | undefined;
}

/**
 * A page of objects that pass `keep`, read from the store page by page: field selectors and
 * namespace visibility are applied here, so a page holds up to `limit` matching objects and its
 * continue token resumes right after the last one.
 */
export async function listMatching(
  context: ApiContext,
  resource: ServedResource,
  query: ListQuery,
  keep: (object: KubeObject) => boolean,
): Promise<ObjectList> {
  const { descriptor } = resource;
  const items: KubeObject[] = [];
  let token = query.continue;
  let resourceVersion: string | undefined;
  for (;;) {
    const options = { namespace: query.namespace, labelSelector: query.labelSelector, limit: STORE_PAGE };
    const page = await context.store.list(
      descriptor,
      token === undefined ? options : { ...options, continue: token },
    );
    resourceVersion ??= page.resourceVersion;
    for (const [index, item] of page.items.entries()) {
      if (!keep(item)) continue;
      items.push(item);
      if (query.limit > 0 && items.length === query.limit) {
        const more = index < page.items.length - 1 || page.continue !== undefined;
        if (!more) return { items, resourceVersion };
        const key = descriptor.group ? `${descriptor.plural}.${descriptor.group}` : descriptor.plural;
        const next = encodeContinue({
          resource: key,
          namespace: item.metadata.namespace ?? '',
          name: item.metadata.name,
        });
        return { items, resourceVersion, continue: next };
      }
    }
    if (page.continue === undefined) return { items, resourceVersion };
    token = page.continue;
  }
}

/** The namespace a list or watch reads, and the filter its results pass through. */
function scopeOf(call: ResourceCall): {
  namespace: string | undefined;
  keep: (object: KubeObject) => boolean;
} {
  const fields = parseFieldSelector(queryValue(call.req, 'fieldSelector'), call.resource.descriptor);
  let namespace = call.namespace;
  if (call.resource.descriptor.namespaced && namespace === undefined && fields.namespace !== undefined) {
    namespace = fields.namespace;
    authorize({ ...call, namespace }, 'list');
  }
  return {
    namespace,
    keep: (object) => fields.matches(object) && visibleTo(call, object),
  };
}

export async function getObject(context: ApiContext, call: ResourceCall): Promise<void> {
  authorize(call, 'get');
  const object = await context.store.get(call.resource.descriptor, call.namespace, call.name ?? '');
  sendObject(call, 200, object, context.now());
}

/**
 * The store keeps only the current state: a list pinned to another resourceVersion with `Exact`
 * cannot be served (410, as a compacted etcd answers); `NotOlderThan` is always met by now.
 */
function checkResourceVersionMatch(call: ResourceCall, current: string): void {
  const requested = resourceVersionMatchOf(call.req);
  if (requested?.match !== 'Exact' || requested.resourceVersion === current) return;
  throw new KubeApiError(
    410,
    'Expired',
    `too old resource version: ${requested.resourceVersion} (${current}): this server lists only its current state`,
  );
}

export async function listObjects(context: ApiContext, call: ResourceCall): Promise<void> {
  authorize(call, 'list');
  resourceVersionMatchOf(call.req);
  const labelSelector = labelSelectorOf(call.req);
  const { namespace, keep } = scopeOf(call);
  const list = await listMatching(
    context,
    call.resource,
    {
      namespace,
      labelSelector,
      limit: limitOf(call.req),
      continue: queryValue(call.req, 'continue') || undefined,
    },
    keep,
  );
  checkResourceVersionMatch(call, list.resourceVersion);
  const metadata: { resourceVersion: string; continue?: string } = { resourceVersion: list.resourceVersion };
  if (list.continue !== undefined) metadata.continue = list.continue;
  sendList(call, list.items, metadata, context.now());
}

/** How each watch event is written for the representation the client asked for. */
function eventEncoder(context: ApiContext, call: ResourceCall, keep: (object: KubeObject) => boolean) {
  const representation = negotiate(call.req.headers.accept);
  const includeObject = includeObjectOf(queryValue(call.req, 'includeObject'));
  return (event: WatchEvent): { type: string; object: unknown } | undefined => {
    if (event.type !== 'BOOKMARK' && !keep(event.object)) return undefined;
    const object = event.type === 'BOOKMARK' ? event.object : presented(call.resource, event.object);
    if (representation === 'PartialObjectMetadata')
      return { type: event.type, object: partialObjectMetadata(object) };
    if (representation !== 'Table') return { type: event.type, object };
    if (event.type === 'BOOKMARK') {
      const table = tableOf(call.resource, [], { includeObject, now: context.now() });
      return {
        type: event.type,
        object: { ...table, metadata: object.metadata, columnDefinitions: [] },
      };
    }
    return {
      type: event.type,
      object: tableOf(call.resource, [object], { includeObject, now: context.now() }),
    };
  };
}

/** The bookmark that ends a watch-list's initial events, at the resourceVersion they were read at. */
function initialEventsEnd(call: ResourceCall, resourceVersion: string): WatchEvent {
  const { apiVersion, descriptor } = call.resource;
  return {
    type: 'BOOKMARK',
    object: {
      apiVersion,
      kind: descriptor.kind,
      metadata: { name: '', resourceVersion, annotations: { 'k8s.io/initial-events-end': 'true' } },
    } as KubeObject,
  };
}

/**
 * Watch-list: every current object as ADDED, the initial-events-end bookmark, then the changes
 * after the resourceVersion the objects were read at.
 */
async function withInitialEvents(
  context: ApiContext,
  call: ResourceCall,
  scope: {
    namespace: string | undefined;
    labelSelector: string | undefined;
    keep: (object: KubeObject) => boolean;
  },
  watchFrom: (resourceVersion: string) => Watch,
): Promise<Watch> {
  const list = await listMatching(
    context,
    call.resource,
    { namespace: scope.namespace, labelSelector: scope.labelSelector, limit: 0, continue: undefined },
    scope.keep,
  );
  const changes = watchFrom(list.resourceVersion);
  return {
    stop: () => changes.stop(),
    async *[Symbol.asyncIterator]() {
      for (const object of list.items) yield { type: 'ADDED', object };
      yield initialEventsEnd(call, list.resourceVersion);
      yield* changes;
    },
  };
}

export async function watchObjects(context: ApiContext, call: ResourceCall): Promise<void> {
  authorize(call, 'watch');
  const labelSelector = labelSelectorOf(call.req);
  const initialEvents = sendsInitialEvents(call.req);
  const resourceVersion = watchResourceVersionOf(call.req);
  const timeoutSeconds = timeoutSecondsOf(call.req);
  const { namespace, keep } = scopeOf(call);
  const encode = eventEncoder(context, call, keep);
  const options: {
    namespace?: string;
    labelSelector?: string;
    resourceVersion: string;
    allowBookmarks: boolean;
  } = {
    resourceVersion,
    allowBookmarks: queryBoolean(call.req, 'allowWatchBookmarks'),
  };
  if (namespace !== undefined) options.namespace = namespace;
  if (labelSelector !== undefined) options.labelSelector = labelSelector;
  const watchFrom = (from: string) =>
    context.store.watch(call.resource.descriptor, { ...options, resourceVersion: from });
  const watch = initialEvents
    ? await withInitialEvents(context, call, { namespace, labelSelector, keep }, watchFrom)
    : watchFrom(resourceVersion);
  await streamWatch(call.res, {
    watch,
    encode,
    timeoutSeconds,
    group: call.resource.descriptor.group,
    logger: context.logger,
  });
}
