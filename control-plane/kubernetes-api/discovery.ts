import type { ResourceCatalog, ServedResource } from './served-resources.js';

/**
 * The discovery documents: legacy (`APIVersions`, `APIGroupList`, `APIResourceList`) and the
 * aggregated `apidiscovery.k8s.io/v2` form kubectl asks for first, which saves it one request per
 * group version.
 */

export const AGGREGATED_DISCOVERY_TYPE =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/** The Kubernetes release whose API this one follows. */
const KUBERNETES_MINOR = '33';

export function versionInfo(): Record<string, string> {
  return {
    major: '1',
    minor: KUBERNETES_MINOR,
    gitVersion: `v1.${KUBERNETES_MINOR}.0-cloudplane`,
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate: '',
    goVersion: '',
    compiler: 'node',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

function groupVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export function coreVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(name: string, versions: string[]): Record<string, unknown> {
  const entries = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { name, versions: entries, preferredVersion: entries[0] };
}

export function groupList(catalog: ResourceCatalog): Record<string, unknown> {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: catalog.groups().map((group) => apiGroup(group.name, group.versions)),
  };
}

export function groupDocument(catalog: ResourceCatalog, name: string): Record<string, unknown> | undefined {
  const group = catalog.groups().find((entry) => entry.name === name);
  return group && { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group.name, group.versions) };
}

export function resourceList(
  catalog: ResourceCatalog,
  group: string,
  version: string,
): Record<string, unknown> {
  const resources = catalog.resourcesOf(group, version).flatMap((resource) => {
    const { descriptor } = resource;
    const main = {
      name: descriptor.plural,
      singularName: descriptor.singular,
      namespaced: descriptor.namespaced,
      kind: descriptor.kind,
      verbs: resource.verbs,
      shortNames: descriptor.shortNames,
      categories: descriptor.categories,
    };
    return [
      main,
      ...resource.subresources.map((subresource) => ({
        name: `${descriptor.plural}/${subresource.name}`,
        singularName: '',
        namespaced: descriptor.namespaced,
        kind: subresource.name === 'token' ? 'TokenRequest' : descriptor.kind,
        ...(subresource.name === 'token' ? { group: 'authentication.k8s.io', version: 'v1' } : {}),
        verbs: subresource.verbs,
      })),
    ];
  });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: groupVersion(group, version), resources };
}

function discoveredResource(resource: ServedResource): Record<string, unknown> {
  const { descriptor } = resource;
  const responseKind = { group: descriptor.group, version: descriptor.version, kind: descriptor.kind };
  const entry: Record<string, unknown> = {
    resource: descriptor.plural,
    responseKind,
    scope: descriptor.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: descriptor.singular,
    verbs: resource.verbs,
    shortNames: descriptor.shortNames,
    categories: descriptor.categories,
  };
  if (resource.subresources.length > 0) {
    entry.subresources = resource.subresources.map((subresource) => ({
      subresource: subresource.name,
      responseKind:
        subresource.name === 'token'
          ? { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }
          : responseKind,
      verbs: subresource.verbs,
    }));
  }
  return entry;
}

/** `apidiscovery.k8s.io/v2` APIGroupDiscoveryList of the core group (`/api`) or of every named group (`/apis`). */
export function aggregatedDiscovery(catalog: ResourceCatalog, core: boolean): Record<string, unknown> {
  const groups = core ? [{ name: '', versions: ['v1'] }] : catalog.groups();
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items: groups.map((group) => ({
      metadata: group.name ? { name: group.name } : {},
      versions: group.versions.map((version) => ({
        version,
        resources: catalog.resourcesOf(group.name, version).map(discoveredResource),
        freshness: 'Current',
      })),
    })),
  };
}
