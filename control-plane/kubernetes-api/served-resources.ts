import type { KindDescriptor } from '../kind-descriptor.js';
import { GROUP, VERSION } from '../kind-descriptor.js';
import { compileKindSchema, type SchemaCheck } from '../schema-validator.js';
import { isBuiltIn, SERVICE_ACCOUNT_KIND } from '../built-in-kinds.js';

const RESOURCE_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const STATUS_VERBS = ['get', 'patch', 'update'];

/** A subresource and the verbs it answers. */
export interface ServedSubresource {
  name: 'status' | 'token';
  verbs: readonly string[];
}

/** One resource this API serves: a kind of the store and how it behaves over HTTP. */
export interface ServedResource {
  descriptor: KindDescriptor;
  /** `cloudplane.dev/v1alpha1`, or `v1` for the core group. */
  apiVersion: string;
  /**
   * Built into Kubernetes rather than defined by a CRD: updates may omit resourceVersion, a
   * strategic merge patch is taken as a merge patch, and there is no status subresource.
   */
  builtIn: boolean;
  hasStatus: boolean;
  /** A review is only created, never stored: the answer is the object with its status filled. */
  review: boolean;
  verbs: readonly string[];
  subresources: readonly ServedSubresource[];
  /** The kind's structural schema, to name the fields a write would drop. */
  schema: SchemaCheck | undefined;
}

export interface ServedGroup {
  name: string;
  versions: string[];
}

/** The store's kinds, addressable by group, version and plural. */
export class ResourceCatalog {
  private readonly byPath = new Map<string, ServedResource>();
  private readonly ordered: ServedResource[] = [];

  /** `kinds` are stored; `reviews` only answer a create. */
  constructor(kinds: readonly KindDescriptor[], reviews: readonly KindDescriptor[] = []) {
    const entries = [
      ...kinds.map((descriptor) => ({ descriptor, review: false })),
      ...reviews.map((descriptor) => ({ descriptor, review: true })),
    ];
    for (const { descriptor, review } of entries) {
      const builtIn = review || isBuiltIn(descriptor);
      const subresources: ServedSubresource[] = [];
      if (!builtIn) subresources.push({ name: 'status', verbs: STATUS_VERBS });
      if (descriptor.group === '' && descriptor.plural === SERVICE_ACCOUNT_KIND.plural)
        subresources.push({ name: 'token', verbs: ['create'] });
      const resource: ServedResource = {
        descriptor,
        apiVersion: descriptor.group ? `${descriptor.group}/${descriptor.version}` : descriptor.version,
        builtIn,
        hasStatus: !builtIn,
        review,
        verbs: review ? ['create'] : RESOURCE_VERBS,
        subresources,
        schema: descriptor.schema ? compileKindSchema(descriptor.schema) : undefined,
      };
      this.byPath.set(this.key(descriptor.group, descriptor.version, descriptor.plural), resource);
      this.ordered.push(resource);
    }
  }

  find(group: string, version: string, plural: string): ServedResource | undefined {
    return this.byPath.get(this.key(group, version, plural));
  }

  /** The resources of one group version, in the order the store lists its kinds. */
  resourcesOf(group: string, version: string): ServedResource[] {
    return this.ordered.filter(
      (resource) => resource.descriptor.group === group && resource.descriptor.version === version,
    );
  }

  /** Every named group with its versions: `cloudplane.dev` first (even before its kinds exist), then the others. */
  groups(): ServedGroup[] {
    const groups = new Map<string, ServedGroup>([[GROUP, { name: GROUP, versions: [VERSION] }]]);
    for (const { descriptor } of this.ordered) {
      if (!descriptor.group) continue;
      const group = groups.get(descriptor.group) ?? { name: descriptor.group, versions: [] };
      if (!group.versions.includes(descriptor.version)) group.versions.push(descriptor.version);
      groups.set(descriptor.group, group);
    }
    return [...groups.values()];
  }

  servesGroupVersion(group: string, version: string): boolean {
    return group === ''
      ? version === 'v1'
      : this.groups().some((served) => served.name === group && served.versions.includes(version));
  }

  all(): readonly ServedResource[] {
    return this.ordered;
  }

  private key(group: string, version: string, plural: string): string {
    return `${group}/${version}/${plural}`;
  }
}
