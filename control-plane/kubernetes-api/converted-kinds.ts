import type { EmbeddedStore } from '../embedded-store/index.js';
import { EVENT_KIND, EVENTS_V1_KIND } from '../built-in-kinds.js';
import { fromEventsV1, toEventsV1 } from '../event-objects.js';
import type { KindDescriptor } from '../kind-descriptor.js';
import type { KubeObject, ResourceType, Watch } from '../types.js';

/** The operations the API's handlers ask of the store. */
export type ApiStore = Pick<
  EmbeddedStore,
  'get' | 'list' | 'create' | 'update' | 'updateStatus' | 'delete' | 'watch'
>;

/**
 * A kind the API serves that the store keeps as another: objects are converted on the way in
 * and out, as a kube-apiserver serves one resource at several group versions from one storage.
 */
export interface ConvertedKind {
  served: KindDescriptor;
  stored: KindDescriptor;
  toStored(object: KubeObject): KubeObject;
  fromStored(object: KubeObject): KubeObject;
}

/** `events.k8s.io/v1` Events, kept as core `v1` Events. */
export const EVENTS_V1_CONVERSION: ConvertedKind = {
  served: EVENTS_V1_KIND,
  stored: EVENT_KIND,
  toStored: fromEventsV1,
  fromStored: toEventsV1,
};

function sameKind(a: ResourceType, b: ResourceType): boolean {
  return a.group === b.group && a.version === b.version && a.plural === b.plural;
}

function convertedWatch<T extends KubeObject>(watch: Watch, conversion: ConvertedKind): Watch<T> {
  return {
    stop: () => watch.stop(),
    async *[Symbol.asyncIterator]() {
      for await (const event of watch) {
        const object =
          event.type === 'BOOKMARK'
            ? { ...event.object, apiVersion: `${conversion.served.group}/${conversion.served.version}` }
            : conversion.fromStored(event.object);
        yield { type: event.type, object: object as T };
      }
    },
  };
}

/**
 * The store as the handlers see it: a call about a converted kind reads and writes its stored
 * kind and converts the objects; every other call passes through.
 */
export function convertingStore(store: ApiStore, conversions: readonly ConvertedKind[]): ApiStore {
  const find = (type: ResourceType) => conversions.find((entry) => sameKind(entry.served, type));
  return {
    get: async <T extends KubeObject>(type: ResourceType, namespace: string | undefined, name: string) => {
      const conversion = find(type);
      if (!conversion) return store.get<T>(type, namespace, name);
      return conversion.fromStored(await store.get(conversion.stored, namespace, name)) as T;
    },
    list: async (type, options) => {
      const conversion = find(type);
      if (!conversion) return store.list(type, options);
      const list = await store.list(conversion.stored, options);
      return { ...list, items: list.items.map(conversion.fromStored) } as never;
    },
    create: async (type, object, options) => {
      const conversion = find(type);
      if (!conversion) return store.create(type, object, options);
      return conversion.fromStored(
        await store.create(conversion.stored, conversion.toStored(object), options),
      ) as never;
    },
    update: async (type, object, options) => {
      const conversion = find(type);
      if (!conversion) return store.update(type, object, options);
      return conversion.fromStored(
        await store.update(conversion.stored, conversion.toStored(object), options),
      ) as never;
    },
    updateStatus: async (type, object, options) => {
      const conversion = find(type);
      if (!conversion) return store.updateStatus(type, object, options);
      return conversion.fromStored(
        await store.updateStatus(conversion.stored, conversion.toStored(object), options),
      ) as never;
    },
    delete: async (type, namespace, name, options) => {
      const conversion = find(type);
      if (!conversion) return store.delete(type, namespace, name, options);
      return conversion.fromStored(await store.delete(conversion.stored, namespace, name, options)) as never;
    },
    watch: <T extends KubeObject>(type: ResourceType, options?: Parameters<ApiStore['watch']>[1]) => {
      const conversion = find(type);
      if (!conversion) return store.watch<T>(type, options);
      return convertedWatch<T>(store.watch(conversion.stored, options), conversion);
    },
  };
}
