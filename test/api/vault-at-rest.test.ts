import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { combineShares } from '../../vault/shamir.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

const SECRET_VALUE = 'correct-horse-battery-staple-4f1c2e';
const CUSTOM_SECRET = 'hunter2-db-password-9ab7';
const TRANSIT_PLAINTEXT = 'pan-4111111111111111-exp-0929';

describe('vault data at rest', () => {
  let app: TestPlatform;
  let owner: TestAccount;
  let unsealKeys: string[];
  let clientToken: string;

  const call = async (method: string, requestPath: string, body?: unknown) => {
    const response = await app.call(method, `/api/v1/vault${requestPath}`, { token: owner.token, body });
    expect(response.status, await response.clone().text()).toBeLessThan(300);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as Record<string, unknown>;
  };

  beforeAll(async () => {
    app = await startPlatform({ userAgent: 'vault-api-test' });
    owner = await registerAndSignIn(app);
    const created = await call('POST', '', { name: 'at-rest' });
    const id = created.id as string;
    unsealKeys = created.unseal_keys as string[];
    for (const key of unsealKeys.slice(0, 3)) await call('POST', `/${id}/unseal`, { key });
    await call('POST', `/${id}/secret/app/db`, {
      data: { password: SECRET_VALUE, nested: { other: CUSTOM_SECRET } },
    });
    await call('POST', `/${id}/secret/app/db`, { data: { password: `${SECRET_VALUE}-v2` } });
    await call('POST', `/${id}/policies`, {
      name: 'reader',
      rules: 'path "secret/data/*" { capabilities = ["read"] }',
    });
    clientToken = (await call('POST', `/${id}/tokens`, { policies: ['reader'] })).client_token as string;
    await call('POST', `/${id}/encrypt/cards`, {
      plaintext: Buffer.from(TRANSIT_PLAINTEXT).toString('base64'),
    });
    await call('POST', `/${id}/keys/cards/rotate`);
  });
  afterAll(async () => app?.close());

  /** Every row of every data-plane table, as text. */
  async function dumpDataPlane(): Promise<string> {
    const tables = await app.database.kysely.introspection.getTables();
    const dumps: string[] = [];
    for (const table of tables) {
      const rows = await app.database.kysely
        .selectFrom(table.name as never)
        .selectAll()
        .execute();
      dumps.push(`${table.name}: ${JSON.stringify(rows)}`);
    }
    return dumps.join('\n');
  }

  /** The raw bytes of every file in the data dir (databases, write-ahead logs), as latin1 text. */
  function rawFiles(): string {
    return fs
      .readdirSync(app.dataDir)
      .filter((name) => fs.statSync(path.join(app.dataDir, name)).isFile())
      .map((name) => fs.readFileSync(path.join(app.dataDir, name)).toString('latin1'))
      .join('\n');
  }

  function forbiddenValues(): string[] {
    const rootKey = combineShares(unsealKeys.slice(0, 3).map((key) => Buffer.from(key, 'base64')));
    return [
      SECRET_VALUE,
      CUSTOM_SECRET,
      TRANSIT_PLAINTEXT,
      Buffer.from(TRANSIT_PLAINTEXT).toString('base64'),
      clientToken,
      clientToken.slice(4),
      ...unsealKeys,
      rootKey.toString('base64'),
      rootKey.toString('hex'),
      rootKey.toString('latin1'),
    ];
  }

  it('stores no secret value, raw token, unseal key or root key in any data-plane table', async () => {
    const dump = await dumpDataPlane();
    expect(dump).toContain('vault_secret_versions');
    expect(dump).toContain('hmac-sha256:');
    for (const value of forbiddenValues()) expect(dump).not.toContain(value);
  });

  it('leaves none of them in the files on disk, the object store included', () => {
    const raw = rawFiles();
    for (const value of forbiddenValues()) expect(raw).not.toContain(value);
  });

  it('writes none of them to a log line', () => {
    const logs = JSON.stringify(app.logLines);
    for (const value of forbiddenValues()) expect(logs).not.toContain(value);
  });
});
