import type { OrganizationRole } from '../data-plane/schema.js';

/** Every scope a credential can hold. `*` grants all of them, including ones added later. */
export const SCOPES = [
  'vault:read',
  'vault:write',
  'vpc:read',
  'vpc:write',
  'integrations:read',
  'integrations:write',
  'stacks:read',
  'stacks:write',
  'streaming:read',
  'streaming:write',
  'databases:read',
  'databases:write',
  'usage:read',
  '*',
] as const;

export type Scope = (typeof SCOPES)[number];

const READ_SCOPES = SCOPES.filter((scope) => scope.endsWith(':read'));

/**
 * What each role may do in its organization.
 *
 * - `owner` and `admin`: everything. They differ only in who may manage the organization itself
 *   (an owner cannot be removed by an admin), which is decided where membership is managed.
 * - `member`: reads everything and builds infrastructure (VPCs, stacks, streaming clusters,
 *   databases), but
 *   writes neither vault secrets nor integrations, the two places that hold credentials of their
 *   own. Those stay with admins, who answer for who can read them.
 * - `viewer`: reads everything, writes nothing.
 */
export const ROLE_SCOPES: Readonly<Record<OrganizationRole, readonly Scope[]>> = {
  owner: ['*'],
  admin: ['*'],
  member: [...READ_SCOPES, 'vpc:write', 'stacks:write', 'streaming:write', 'databases:write'],
  viewer: READ_SCOPES,
};

/** Every role, the most powerful first. */
export const ROLES: readonly OrganizationRole[] = ['owner', 'admin', 'member', 'viewer'];

/**
 * Whether `actor` may invite, promote, demote or remove members. Owners and admins manage the
 * team; only an owner grants or takes away ownership, as on GitHub.
 */
export function mayManageMembers(actor: OrganizationRole): boolean {
  return actor === 'owner' || actor === 'admin';
}

/** Whether `actor` may give `role` to someone, or change the role of someone who holds `role`. */
export function mayAssign(actor: OrganizationRole, role: OrganizationRole): boolean {
  return mayManageMembers(actor) && (role !== 'owner' || actor === 'owner');
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** The requested scopes that `granted` does not cover. */
export function scopesBeyond(granted: readonly string[], requested: readonly string[]): string[] {
  if (granted.includes('*')) return [];
  return requested.filter((scope) => !granted.includes(scope));
}

/** The scopes both sets grant; `*` on either side defers to the other. */
export function intersectScopes(a: readonly string[], b: readonly string[]): string[] {
  if (a.includes('*')) return [...b];
  if (b.includes('*')) return [...a];
  return a.filter((scope) => b.includes(scope));
}
