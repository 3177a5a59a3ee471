import type { Kysely, Selectable } from 'kysely';
import { conflicting, type AccountError } from './account-error.js';
import type { DataPlane } from '../data-plane/data-plane.js';
import type { DataPlaneSchema, UsersTable } from '../data-plane/schema.js';
import { newId } from './ids.js';
import { createOrganization, personalOrganizationName } from './organizations.js';
import { preparedQuery } from '../data-plane/prepared-query.js';
import { isUniqueViolation } from '../data-plane/unique-violation.js';

/** An account as the domain reads it; secrets (password hash, TOTP secret) are not part of it. */
export interface UserRecord {
  id: string;
  email: string;
  name: string;
  email_verified: boolean;
  avatar_url: string | null;
  two_factor_enabled: boolean;
  current_organization_id: string | null;
  created_at: string;
}

export interface NewUser {
  email: string;
  name: string;
  /** A hash from `hashPassword`; null for an account that signs in only through OAuth. */
  passwordHash: string | null;
  emailVerified: boolean;
  avatarUrl?: string | null;
}

/** E-mail addresses are compared case-insensitively and stored lowercase. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function toUserRecord(row: Selectable<UsersTable>): UserRecord {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    email_verified: row.email_verified === 1,
    avatar_url: row.avatar_url,
    two_factor_enabled: row.two_factor_enabled === 1,
    current_organization_id: row.current_organization_id,
    created_at: row.created_at,
  };
}

/** The whole row, secrets included, for the flows that check them. */
export async function findUserRow(
  db: Kysely<DataPlaneSchema>,
  where: { id: string } | { email: string },
): Promise<Selectable<UsersTable> | undefined> {
  const [row] =
    'id' in where ? await userById(db, where.id) : await userByEmail(db, normalizeEmail(where.email));
  return row;
}

// Every authenticated request reads its user: compiled once rather than built per call.
const userById = preparedQuery((db, id: string) => db.selectFrom('users').selectAll().where('id', '=', id));
const userByEmail = preparedQuery((db, email: string) =>
  db.selectFrom('users').selectAll().where('email', '=', email),
);

export async function findUserByEmail(db: DataPlane, email: string): Promise<UserRecord | undefined> {
  const row = await findUserRow(db.kysely, { email });
  return row && toUserRecord(row);
}

export async function findUserById(db: DataPlane, id: string): Promise<UserRecord | undefined> {
  const row = await findUserRow(db.kysely, { id });
  return row && toUserRecord(row);
}

export function emailTaken(): AccountError {
  return conflicting('email_taken', 'an account with this e-mail address already exists');
}

/**
 * Creates an account together with its own organization ("<name>'s organization"), in which the
 * user is `owner` and which becomes the current organization. Throws 409 `email_taken` when the
 * e-mail address is in use.
 */
export async function createUser(db: DataPlane, input: NewUser, now: Date): Promise<UserRecord> {
  const timestamp = now.toISOString();
  const row: Selectable<UsersTable> = {
    id: newId('usr'),
    email: normalizeEmail(input.email),
    name: input.name,
    password_hash: input.passwordHash,
    avatar_url: input.avatarUrl ?? null,
    email_verified: input.emailVerified ? 1 : 0,
    two_factor_enabled: 0,
    totp_secret: null,
    totp_last_step: null,
    current_organization_id: null,
    created_at: timestamp,
    updated_at: timestamp,
  };
  try {
    await db.kysely.transaction().execute(async (trx) => {
      await trx.insertInto('users').values(row).execute();
      const organization = await createOrganization(
        trx,
        { name: personalOrganizationName(input.name), ownerId: row.id },
        now,
      );
      row.current_organization_id = organization.id;
      await trx
        .updateTable('users')
        .set({ current_organization_id: organization.id })
        .where('id', '=', row.id)
        .execute();
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken();
    throw error;
  }
  return toUserRecord(row);
}

export async function markEmailVerified(db: DataPlane, userId: string, now: Date): Promise<void> {
  await db.kysely
    .updateTable('users')
    .set({ email_verified: 1, updated_at: now.toISOString() })
    .where('id', '=', userId)
    .execute();
}
