/**
 * The list, read and delete that resource families share: each family configures them with how
 * its objects are found and its REST view, and its named handlers call them.
 */
import type { Principal } from '../../accounts/principal.js';
import type { KubeObject, ObjectStore } from '../../control-plane/types.js';
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

/** An object whose spec carries a display name, unique in its organization unless its family says not. */
type NamedObject = KubeObject<{ name?: string | undefined }>;

/** What a family says once more for its creates. */
export type CreatableFamily<T extends NamedObject, V> = ResourceFamily<T, V> & PlacedFamily<T>;

/** How a family places a new object: its ids, and whether (and how) its names are kept unique. */
export type PlacedFamily<T extends NamedObject> = { lookup: OrganizationLookup<T> } & (
  | {
      /** The prefix of the REST ids it hands out: `db` for `db_…`. */
      idPrefix: IdPrefix;
    }
  | {
      /** How an id of a form of its own is made (a VPC's uuid). */
      newId: () => string;
    }
) & {
    /**
     * By default a live object of the family with the name is a 409 on `name`. A family whose 409
     * says more (the integration holding the name) checks here; `false` where names may repeat
     * (VPCs, subnets).
     */
    nameCheck?: false | ((store: ObjectStore, namespace: string, name: string) => Promise<void>);
  };

/** Where a new object goes: its REST id and its organization's namespace. */
export interface NewResourcePlace {
  id: string;
  namespace: string;
}

/** The 409 of a name a live object of the family holds in the namespace. */
async function refuseHeldName<T extends NamedObject>(
  store: ObjectStore,
  namespace: string,
  lookup: OrganizationLookup<T>,
  name: string,
) {
  const { items } = await store.list<T>(lookup.type, { namespace });
  if (items.some((other) => other.spec?.name === name && !other.metadata.deletionTimestamp)) {
    throw conflict(`a ${lookup.noun} named ${name} exists`, { details: { field: 'name' } });
  }
}

/**
 * The start that creates share, once the family has validated the body: the caller's namespace
 * (created when missing), the family's check that `name` is free, and a new id.
 */
export async function newResourcePlace<T extends NamedObject>(
  ctx: CallerContext,
  family: PlacedFamily<T>,
  name: string,
): Promise<NewResourcePlace> {
  const namespace = await ensureTenantNamespace(ctx.store, ctx.principal);
  if (family.nameCheck === undefined) await refuseHeldName(ctx.store, namespace, family.lookup, name);
  else if (family.nameCheck) await family.nameCheck(ctx.store, namespace, name);
  return { id: 'newId' in family ? family.newId() : newRestId(family.idPrefix), namespace };
}

/**
 * The part of a create that families share, once the family has validated the body: its place
 * (`newResourcePlace`), the family's `write` (which charges its quota when it has one), and the 201
 * with the REST view (a family whose create answers less gives that view here).
 */
export async function createResource<T extends NamedObject, V>(
  ctx: CallerContext,
  family: CreatableFamily<T, V>,
  name: string,
  write: (place: NewResourcePlace) => Promise<T>,
) {
  const created = await write(await newResourcePlace(ctx, family, name));
  return { status: 201, data: family.view(created) };
}
