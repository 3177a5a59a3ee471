import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DataPlaneSchema } from '../data-plane/schema.js';
import type { AccountsDeps } from './deps.js';
import { randomBase32 } from './ids.js';

export const BACKUP_CODE_COUNT = 10;

/** `abcde-fghij`: 50 random bits, grouped for reading aloud and typing. */
function newBackupCode(): string {
  const code = randomBase32(10);
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** Case, spaces and dashes do not matter when a code is typed back. */
function normalize(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/**
 * Keyed with a key derived from the platform key and bound to the user: a copy of the table alone
 * does not let anyone test guesses offline.
 */
function backupCodeHash(deps: AccountsDeps, userId: string, code: string): string {
  return createHmac('sha256', deps.keys.backupCode)
    .update(`${userId}:${normalize(code)}`)
    .digest('hex');
}

/** Replaces the user's backup codes with new ones; answers them in clear, the only time they are shown. */
export async function replaceBackupCodes(
  deps: AccountsDeps,
  trx: Kysely<DataPlaneSchema>,
  userId: string,
): Promise<string[]> {
  const codes = Array.from({ length: BACKUP_CODE_COUNT }, newBackupCode);
  await trx.deleteFrom('backup_codes').where('user_id', '=', userId).execute();
  await trx
    .insertInto('backup_codes')
    .values(
      codes.map((code) => ({
        user_id: userId,
        code_hash: backupCodeHash(deps, userId, code),
        used_at: null,
      })),
    )
    .execute();
  return codes;
}

/** Spends a backup code; true when it was one of the user's and had not been used. */
export async function spendBackupCode(deps: AccountsDeps, userId: string, code: string): Promise<boolean> {
  const result = await deps.database.kysely
    .updateTable('backup_codes')
    .set({ used_at: deps.now().toISOString() })
    .where('user_id', '=', userId)
    .where('code_hash', '=', backupCodeHash(deps, userId, code))
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
