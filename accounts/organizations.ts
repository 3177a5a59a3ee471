import type { Kysely } from 'kysely';
import { preparedQuery } from '../data-plane/prepared-query.js';
import type { DataPlaneSchema, OrganizationRole } from '../data-plane/schema.js';
import { newId } from './ids.js';

/** An organization as one of its members sees it. */
export interface Membership {
  id: string;
  name: string;
  role: OrganizationRole;
  /** `deleting` once an owner asked for its deletion, until it is gone. */
  status: 'active' | 'deleting';
  created_at: string;
}

function withStatus<T extends { deleting_at: string | null }>(row: T) {
  const { deleting_at, ...rest } = row;
  return { ...rest, status: deleting_at === null ? ('active' as const) : ('deleting' as const) };
}

const ORGANIZATION_ID = /^org_([a-z2-7]{1,59})$/;

/**
 * The object-store namespace holding an organization's resources: `org-` and the id's random
 * part, a valid DNS label (at most 63 characters). Every facade read and write of an
 * organization's resources goes through this namespace, so another tenant's resource is simply
 * not found.
 */
export function organizationNamespace(orgId: string): string {
  const match = ORGANIZATION_ID.exec(orgId);
  if (!match) throw new RangeError(`not an organization id: ${JSON.stringify(orgId)}`);
  return `org-${match[1]}`;
}

/** The organization a namespace belongs to, or undefined for a namespace that is none's. */
export function organizationOfNamespace(namespace: string | undefined): string | undefined {
  const match = /^org-([a-z2-7]{1,59})$/.exec(namespace ?? '');
  return match ? `org_${match[1]}` : undefined;
}

/** The default name of the organization made with an account. */
export function personalOrganizationName(userName: string): string {
  return `${userName}'s organization`;
}

/** The organizations a user belongs to, oldest first. */
export async function listMemberships(db: Kysely<DataPlaneSchema>, userId: string): Promise<Membership[]> {
  return (await membershipsOf(db, userId)).map(withStatus);
}

// Read by every `GET /v1/auth/me`: compiled once rather than built per call.
const membershipsOf = preparedQuery((db, userId: string) =>
  db
    .selectFrom('organization_members as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['o.id', 'o.name', 'm.role', 'o.deleting_at', 'o.created_at'])
    .where('m.user_id', '=', userId)
    .orderBy('o.created_at')
    .orderBy('o.id'),
);

export async function membershipOf(
  db: Kysely<DataPlaneSchema>,
  userId: string,
  organizationId: string,
): Promise<Membership | undefined> {
  const row = await db
    .selectFrom('organization_members as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .select(['o.id', 'o.name', 'm.role', 'o.deleting_at', 'o.created_at'])
    .where('m.user_id', '=', userId)
    .where('m.organization_id', '=', organizationId)
    .executeTakeFirst();
  return row && withStatus(row);
}

/** Creates an organization with `ownerId` as its owner; run it inside the caller's transaction. */
export async function createOrganization(
  db: Kysely<DataPlaneSchema>,
  input: { name: string; ownerId: string },
  now: Date,
): Promise<Membership> {
  const organization = { id: newId('org'), name: input.name, created_at: now.toISOString() };
  await db.insertInto('organizations').values(organization).execute();
  await db
    .insertInto('organization_members')
    .values({
      organization_id: organization.id,
      user_id: input.ownerId,
      role: 'owner',
      created_at: organization.created_at,
    })
    .execute();
  return { ...organization, role: 'owner', status: 'active' };
}
