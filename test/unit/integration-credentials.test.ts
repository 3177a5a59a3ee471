import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  deleteCredentials,
  DuplicateAccountError,
  readCredentials,
  storeCredentials,
  updateCredentials,
} from '../../integrations/credentials.js';
import { SealedBoxError } from '../../security/sealed-box.js';
import { openTestSqliteDatabase, type TestSqliteDatabase } from '../fixtures/db-sqlite.js';

const NOW = new Date('2026-04-01T10:00:00Z');
let data: TestSqliteDatabase;
const platformKey = randomBytes(32);

beforeEach(async () => {
  data = await openTestSqliteDatabase();
});
afterEach(async () => data.dispose());

function entry(integrationId: string, accountKey: string | null, secret = 'xoxb-secret-value') {
  return {
    integrationId,
    namespace: 'org-1',
    type: 'chat',
    accountKey,
    credentials: { webhook_url: secret },
    now: NOW,
  };
}

describe('integration credentials', () => {
  it('stores them sealed and reads them back only under the platform key', async () => {
    const ref = await storeCredentials(data.database, platformKey, entry('i-1', 'webhook:a'));
    expect(ref).toMatch(/^cred-/);
    const row = await data.database.kysely
      .selectFrom('integration_credentials')
      .selectAll()
      .executeTakeFirstOrThrow();
    expect(row.sealed_credentials).not.toContain('xoxb-secret-value');
    expect(await readCredentials(data.database, platformKey, 'i-1')).toEqual({
      webhook_url: 'xoxb-secret-value',
    });
    await expect(readCredentials(data.database, randomBytes(32), 'i-1')).rejects.toBeInstanceOf(
      SealedBoxError,
    );
  });

  it('binds the sealed value to its integration, so a copied row does not open', async () => {
    await storeCredentials(data.database, platformKey, entry('i-1', null));
    await storeCredentials(data.database, platformKey, entry('i-2', null, 'other'));
    const first = await data.database.kysely
      .selectFrom('integration_credentials')
      .select('sealed_credentials')
      .where('integration_id', '=', 'i-1')
      .executeTakeFirstOrThrow();
    await data.database.kysely
      .updateTable('integration_credentials')
      .set({ sealed_credentials: first.sealed_credentials })
      .where('integration_id', '=', 'i-2')
      .execute();
    await expect(readCredentials(data.database, platformKey, 'i-2')).rejects.toBeInstanceOf(SealedBoxError);
  });

  it('refuses a second integration of the same type and provider account in one organization', async () => {
    await storeCredentials(data.database, platformKey, entry('i-1', 'webhook:a'));
    await expect(
      storeCredentials(data.database, platformKey, entry('i-2', 'webhook:a')),
    ).rejects.toBeInstanceOf(DuplicateAccountError);
    await storeCredentials(data.database, platformKey, { ...entry('i-3', 'webhook:a'), namespace: 'org-2' });
    await storeCredentials(data.database, platformKey, entry('i-4', null));
    await storeCredentials(data.database, platformKey, entry('i-5', null));
    await expect(
      updateCredentials(data.database, platformKey, 'i-4', { accountKey: 'webhook:a', now: NOW }),
    ).rejects.toBeInstanceOf(DuplicateAccountError);
  });

  it('merges changes, and deletes', async () => {
    await storeCredentials(data.database, platformKey, entry('i-1', null));
    expect(
      await updateCredentials(data.database, platformKey, 'i-1', {
        changes: { signing_secret: 's' },
        now: NOW,
      }),
    ).toBe(true);
    expect(await readCredentials(data.database, platformKey, 'i-1')).toEqual({
      webhook_url: 'xoxb-secret-value',
      signing_secret: 's',
    });
    await deleteCredentials(data.database, 'i-1');
    expect(await readCredentials(data.database, platformKey, 'i-1')).toBeUndefined();
    expect(await updateCredentials(data.database, platformKey, 'i-1', { now: NOW })).toBe(false);
  });
});
