/**
 * The list, read and delete that resource families share: each family configures them with how
 * its objects are found and its REST view, and its named handlers call them.
 */
import type { Principal } from '../../accounts/principal.js';
import type { KubeObject } from '../../control-plane/types.js';
import { newRestId, type IdPrefix } from '../../crds/ids.js';
import { conflict } from '../errors.js';
import { withoutDeleted } from './deleted.js';
import { byCreation, pageOf, type PageQuery } from './pagination.js';
import type { RouteContext } from './route.js';
import {
  ensureTenantNamespace,
  findInOrganization,
  tenantNamespace,
  type OrganizationLookup,
} from './tenancy.js';

/** What a family says once for its plain list, read and delete. */
export interface ResourceFamily<T extends KubeObject, V> {
  lookup: OrganizationLookup<T>;
  /** The object as the REST API shows it. */
  view: (object: T) => V;
}

type CallerContext = Pick<RouteContext, 'store'> & { principal: Principal };

/**
 * A page of the family's objects in the caller's organization, oldest first, as REST views that
 * pass `keep`; objects being deleted and ones without a spec yet are left out.
 */
export async function listResources<T extends KubeObject, V>(
  ctx: CallerContext & { query: PageQuery },
  family: ResourceFamily<T, V>,
  keep: (row: V) => boolean = () => true,
) {
  const { items } = await ctx.store.list<T>(family.lookup.type, {
    namespace: tenantNamespace(ctx.principal),
  });
  const rows = withoutDeleted(items)
    .filter((object) => object.spec)
    .sort(byCreation)
    .map(family.view)
    .filter(keep);
  return pageOf(rows, ctx.query);
}

/**
 * The REST view of the object in the path, or 404 (another organization's included). A family
 * whose single view reads more than the object (a stack's outputs) gives that view here.
 */
export async function readResource<T extends KubeObject, V>(
  ctx: CallerContext & { params: { id: string } },
  family: { lookup: OrganizationLookup<T>; view: (object: T) => V | Promise<V> },
) {
  return {
    data: await family.view(await findInOrganization(ctx.store, ctx.principal, family.lookup, ctx.params.id)),
  };
}

/**
 * Begins the deletion of the object in the path (its finalizers finish it), answering with no
 * body; 404 when the caller's organization has no such object.
 */
export async function deleteResource<T extends KubeObject>(
  ctx: CallerContext & { params: { id: string } },
  family: { lookup: OrganizationLookup<T> },
  /** What the object must record before it goes, for its finalizers to read. */
  beforeDelete?: (object: T) => Promise<unknown>,
) {
  const object = await findInOrganization(ctx.store, ctx.principal, family.lookup, ctx.params.id);
  await beforeDelete?.(object);
  await ctx.store.delete(family.lookup.type, object.metadata.namespace, object.metadata.name);
  return {};
}

/** An object whose spec carries the display name that is unique in its organization. */
type NamedObject = KubeObject<{ name: string }>;

/** What a family says once more for its creates. */
export interface CreatableFamily<T extends NamedObject, V> extends ResourceFamily<T, V> {
  /** The prefix of the REST ids it hands out: `db` for `db_…`. */
  idPrefix: IdPrefix;
}

/** Where a new object goes: its REST id and its organization's namespace. */
export interface NewResourcePlace {
  id: string;
  namespace: string;
}

/**
 * The part of a create that families share, once the family has validated the body: the caller's
 * namespace (created when missing), a 409 on `name` when a live object of the family has that name,
 * a new id, the family's `write` (which charges its quota when it has one), and the 201 with the
 * REST view (a family whose create answers less gives that view here).
 */
export async function createResource<T extends NamedObject, V>(
  ctx: CallerContext,
  family: CreatableFamily<T, V>,
  name: string,
  write: (place: NewResourcePlace) => Promise<T>,
) {
  const namespace = await ensureTenantNamespace(ctx.store, ctx.principal);
  const { items } = await ctx.store.list<T>(family.lookup.type, { namespace });
  if (items.some((other) => other.spec?.name === name && !other.metadata.deletionTimestamp)) {
    throw conflict(`a ${family.lookup.noun} named ${name} exists`, { details: { field: 'name' } });
  }
  const created = await write({ id: newRestId(family.idPrefix), namespace });
  return { status: 201, data: family.view(created) };
}
