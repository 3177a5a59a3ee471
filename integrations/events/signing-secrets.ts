/**
 * Each integration's Standard Webhooks signing secret, generated on first use and stored sealed.
 * Two workers generating one at once both insert-or-ignore and then read the row that won, so
 * every event of an integration is signed with the same secret.
 */
import type { DataPlane } from '../../data-plane/data-plane.js';
import { deriveKey } from '../../security/key-derivation.js';
import { open, seal } from '../../security/sealed-box.js';
import { newSigningSecret } from './signatures.js';

const KEY_PURPOSE = 'cloudplane integration signing secrets';

function associatedData(integrationId: string): string {
  return `integration-signing-secret:${integrationId}`;
}

async function readSealed(database: DataPlane, integrationId: string): Promise<string | undefined> {
  const row = await database.kysely
    .selectFrom('integration_signing_secrets')
    .select('sealed_secret')
    .where('integration_id', '=', integrationId)
    .executeTakeFirst();
  return row?.sealed_secret;
}

/** The integration's signing secret, created when it has none yet. */
export async function signingSecretOf(
  database: DataPlane,
  platformKey: Buffer,
  integrationId: string,
  now: Date,
): Promise<string> {
  const key = deriveKey(platformKey, KEY_PURPOSE);
  let sealed = await readSealed(database, integrationId);
  if (sealed === undefined) {
    await database.kysely
      .insertInto('integration_signing_secrets')
      .values({
        integration_id: integrationId,
        sealed_secret: seal(key, newSigningSecret(), associatedData(integrationId)),
        created_at: now.toISOString(),
      })
      .onConflict((conflict) => conflict.column('integration_id').doNothing())
      .execute();
    sealed = (await readSealed(database, integrationId))!;
  }
  return open(key, sealed, associatedData(integrationId)).toString('utf8');
}
