import type { Kysely } from 'kysely';

/**
 * The API verifies an integration's credentials with the provider before it creates the object;
 * it records that here (which generation was verified, and when) instead of writing the object's
 * status, which only the controller writes. The controller takes the verification over.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('integration_credentials').addColumn('verified_generation', 'integer').execute();
  await db.schema.alterTable('integration_credentials').addColumn('verified_at', 'text').execute();
}
