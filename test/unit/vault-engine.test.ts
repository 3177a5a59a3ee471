import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../vault/audit-log.js';
import { VaultEngine, type ClusterOperations, type VaultClusterEngine } from '../../vault/vault-engine.js';
import { VaultError } from '../../vault/vault-error.js';
import { openTestVaultEngine, PLATFORM_CALLER, type TestVaultEngine } from '../fixtures/vault-engine.js';

const CLUSTER = 'org-test/cluster-a';

async function refusal(promise: Promise<unknown>): Promise<VaultError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof VaultError) return error;
    throw error;
  }
  throw new Error('expected a VaultError');
}

describe('vault engine', () => {
  let vault: TestVaultEngine;
  let cluster: VaultClusterEngine;
  let unsealKeys: string[];

  const run = <T>(action: (ops: Ops) => Promise<T>): Promise<T> =>
    cluster.perform(PLATFORM_CALLER, { operation: 'UPDATE', path: 'test', successStatus: 200 }, action);

  beforeEach(async () => {
    vault = await openTestVaultEngine();
    unsealKeys = await vault.engine.initialize(CLUSTER, { shares: 5, threshold: 3, autoUnseal: false });
    cluster = vault.engine.forCluster(CLUSTER);
  });
  afterEach(async () => vault.dispose());

  const unseal = async () => {
    for (const key of unsealKeys.slice(0, 3)) await cluster.unseal(PLATFORM_CALLER, key);
  };

  describe('seal', () => {
    it('starts sealed and unseals with any three of five keys, reporting progress like Vault', async () => {
      expect(unsealKeys).toHaveLength(5);
      expect(await cluster.status()).toMatchObject({ sealed: true, t: 3, n: 5, progress: 0 });
      expect(await cluster.unseal(PLATFORM_CALLER, unsealKeys[4]!)).toMatchObject({
        sealed: true,
        progress: 1,
      });
      expect(await cluster.unseal(PLATFORM_CALLER, unsealKeys[1]!)).toMatchObject({
        sealed: true,
        progress: 2,
      });
      expect(await cluster.unseal(PLATFORM_CALLER, unsealKeys[2]!)).toMatchObject({
        sealed: false,
        progress: 0,
      });
    });

    it('answers 503 for every data operation while sealed', async () => {
      const error = await refusal(run((ops) => ops.kv.read('app/db')));
      expect(error.status).toBe(503);
    });

    it('resets progress and answers 400 when the keys come from another cluster', async () => {
      const other = await vault.engine.initialize('org-test/other', {
        shares: 5,
        threshold: 3,
        autoUnseal: false,
      });
      await cluster.unseal(PLATFORM_CALLER, other[0]!);
      await cluster.unseal(PLATFORM_CALLER, other[1]!);
      const error = await refusal(cluster.unseal(PLATFORM_CALLER, other[2]!));
      expect(error.message).toContain('do not reconstruct the root key');
      expect(await cluster.status()).toMatchObject({ sealed: true, progress: 0 });
    });

    it('refuses a key that is not a share', async () => {
      expect((await refusal(cluster.unseal(PLATFORM_CALLER, 'not-a-key'))).status).toBe(400);
    });

    it('seals again on request and when a new engine (a restarted process) opens the data plane', async () => {
      await unseal();
      expect((await cluster.seal(PLATFORM_CALLER)).sealed).toBe(true);
      await unseal();
      const restarted = new VaultEngine({ database: vault.sqlite.database, platformKey: vault.platformKey });
      expect((await restarted.forCluster(CLUSTER).status()).sealed).toBe(true);
    });

    it('shares the unsealed state between engines when asked to, and sealing on one seals both', async () => {
      const options = {
        database: vault.sqlite.database,
        platformKey: vault.platformKey,
        shareUnsealState: true,
      };
      const first = new VaultEngine(options).forCluster(CLUSTER);
      const second = new VaultEngine(options).forCluster(CLUSTER);
      for (const key of unsealKeys.slice(0, 3)) await first.unseal(PLATFORM_CALLER, key);
      expect((await second.status()).sealed).toBe(false);
      await second.seal(PLATFORM_CALLER);
      expect((await first.status()).sealed).toBe(true);
    });

    it('unseals an auto-unseal cluster by itself and hands out no keys', async () => {
      const keys = await vault.engine.initialize('org-test/auto', {
        shares: 5,
        threshold: 3,
        autoUnseal: true,
      });
      expect(keys).toEqual([]);
      expect(await vault.engine.forCluster('org-test/auto').autoUnseal()).toBe(true);
    });
  });

  describe('KV v2 secrets', () => {
    beforeEach(unseal);

    it('versions from 1 and reads the latest or a given version', async () => {
      const first = await run((ops) => ops.kv.write('app/db', { password: 'one' }));
      expect(first).toEqual({
        created_time: '2026-03-01T09:00:00.000Z',
        custom_metadata: null,
        deletion_time: '',
        destroyed: false,
        version: 1,
      });
      await run((ops) => ops.kv.write('app/db', { password: 'two' }));
      expect((await run((ops) => ops.kv.read('app/db'))).data).toEqual({ password: 'two' });
      const old = await run((ops) => ops.kv.read('app/db', 1));
      expect(old).toMatchObject({ data: { password: 'one' }, metadata: { version: 1 } });
    });

    it.each([
      [0, 'create-only write of an existing secret'],
      [5, 'version mismatch'],
    ])('answers 409 for cas %i (%s)', async (cas) => {
      await run((ops) => ops.kv.write('app/cas', { a: 1 }));
      expect((await refusal(run((ops) => ops.kv.write('app/cas', { a: 2 }, { cas })))).status).toBe(409);
    });

    it('accepts cas 0 for a new secret and the current version for an update', async () => {
      await run((ops) => ops.kv.write('app/new', { a: 1 }, { cas: 0 }));
      expect((await run((ops) => ops.kv.write('app/new', { a: 2 }, { cas: 1 }))).version).toBe(2);
    });

    it('soft-deletes: a later read is 404, an older version still reads', async () => {
      await run((ops) => ops.kv.write('app/gone', { v: 1 }));
      await run((ops) => ops.kv.write('app/gone', { v: 2 }));
      await run((ops) => ops.kv.delete('app/gone'));
      expect((await refusal(run((ops) => ops.kv.read('app/gone')))).status).toBe(404);
      expect((await run((ops) => ops.kv.read('app/gone', 1))).data).toEqual({ v: 1 });
      expect((await run((ops) => ops.kv.write('app/gone', { v: 3 }))).version).toBe(3);
    });

    it('lists immediate children, or every path in recursive mode', async () => {
      for (const path of ['app/db', 'app/api/key', 'app/api/cert', 'other/x', 'app_like/y']) {
        await run((ops) => ops.kv.write(path, { v: path }));
      }
      expect(await run((ops) => ops.kv.list('app'))).toEqual(['api/', 'db']);
      expect(await run((ops) => ops.kv.list('app/', true))).toEqual(['api/cert', 'api/key', 'db']);
      expect(await run((ops) => ops.kv.list(''))).toEqual(['app/', 'app_like/', 'other/']);
    });

    it.each(['', '/leading', 'trailing/', 'a//b', 'a/../b', 'sp ace', 'a/./b'])(
      'answers 400 for the invalid path %j',
      async (path) => {
        expect((await refusal(run((ops) => ops.kv.write(path, { a: 1 })))).status).toBe(400);
      },
    );

    it('rolls the write back when its audit entry cannot be written (fail closed)', async () => {
      await vault.sqlite.database.kysely.schema.dropTable('vault_audit_entries').execute();
      const error = await refusal(run((ops) => ops.kv.write('app/unaudited', { a: 1 })));
      expect(error.kind).toBe('audit_unavailable');
      const rows = await vault.sqlite.database.kysely
        .selectFrom('vault_secret_metadata')
        .selectAll()
        .execute();
      expect(rows).toEqual([]);
    });
  });

  describe('read-only requests', () => {
    beforeEach(unseal);
    const read = (path: string) =>
      cluster.perform(
        PLATFORM_CALLER,
        { operation: 'READ', path: `secret/data/${path}`, successStatus: 200, readOnly: true },
        (ops) => ops.kv.read(path),
      );
    const auditCount = async () =>
      (await vault.sqlite.database.kysely.selectFrom('vault_audit_entries').select('id').execute()).length;

    it('writes one audit entry for each of twenty concurrent reads', async () => {
      await run((ops) => ops.kv.write('app/db', { v: 1 }));
      const before = await auditCount();
      const reads = await Promise.all(Array.from({ length: 20 }, () => read('app/db')));
      expect(reads.map((secret) => secret.data)).toEqual(Array.from({ length: 20 }, () => ({ v: 1 })));
      expect(await auditCount()).toBe(before + 20);
    });

    it('fails the read when its audit entry cannot be written (fail closed)', async () => {
      await run((ops) => ops.kv.write('app/db', { v: 1 }));
      await vault.sqlite.database.kysely.schema.dropTable('vault_audit_entries').execute();
      expect((await refusal(read('app/db'))).kind).toBe('audit_unavailable');
    });

    it('runs an encryption that must create its key in a transaction, audited once', async () => {
      const before = await auditCount();
      const ciphertext = await cluster.perform(
        PLATFORM_CALLER,
        { operation: 'UPDATE', path: 'transit/encrypt/new', successStatus: 200, readOnly: true },
        (ops) => ops.transit.encrypt('new', Buffer.from('hello').toString('base64')),
      );
      expect(ciphertext).toMatch(/^vault:v1:/);
      expect(await auditCount()).toBe(before + 1);
    });
  });

  describe('tokens and policies', () => {
    beforeEach(unseal);

    it('authorizes a token by its policies: 403 outside them, 401 once revoked or expired', async () => {
      await run((ops) =>
        ops.policies.write('app-read', 'path "secret/data/app/*" { capabilities = ["read"] }'),
      );
      const token = await run((ops) => ops.createToken({ policies: ['app-read'], ttl: 60 }));
      expect(token.policies).toEqual(['app-read', 'default']);
      const caller = { ...PLATFORM_CALLER, token: token.client_token };
      const read = (path: string) =>
        cluster.perform(
          caller,
          { operation: 'READ', path, capability: 'read', successStatus: 200 },
          async () => 'ok',
        );
      expect(await read('secret/data/app/db')).toBe('ok');
      expect((await refusal(read('secret/data/other'))).status).toBe(403);
      await vault.clock.advance(61_000);
      expect((await refusal(read('secret/data/app/db'))).status).toBe(401);
      const second = await run((ops) => ops.createToken({ policies: ['app-read'] }));
      await run((ops) => ops.tokens.revokeAccessor(second.accessor));
      const revoked = cluster.perform(
        { ...PLATFORM_CALLER, token: second.client_token },
        { operation: 'READ', path: 'secret/data/app/db', capability: 'read', successStatus: 200 },
        async () => 'ok',
      );
      expect((await refusal(revoked)).status).toBe(401);
    });

    it('honours the token method default and maximum TTL', async () => {
      await run((ops) =>
        ops.authMethods.enable('token', 'token', '', { default_lease_ttl: 600, max_lease_ttl: 3600 }),
      );
      expect((await run((ops) => ops.createToken({}))).ttl).toBe(600);
      expect((await run((ops) => ops.createToken({ ttl: 99_999 }))).ttl).toBe(3600);
    });

    it('renews a token up to its maximum lifetime', async () => {
      await run((ops) =>
        ops.authMethods.enable('token', 'token', '', { default_lease_ttl: 100, max_lease_ttl: 150 }),
      );
      const token = await run((ops) => ops.createToken({}));
      await vault.clock.advance(90_000);
      const renewed = await run((ops) => ops.tokens.renew(token.client_token));
      expect(renewed.ttl).toBe(60);
    });
  });

  describe('transit', () => {
    beforeEach(unseal);

    it('encrypts with the latest version and decrypts every version after rotation', async () => {
      const plaintext = Buffer.from('card 4111').toString('base64');
      const v1 = await run((ops) => ops.transit.encrypt('orders', plaintext));
      expect(v1).toMatch(/^vault:v1:[A-Za-z0-9+/]+=*$/);
      expect(await run((ops) => ops.transit.rotate('orders'))).toMatchObject({ latest_version: 2 });
      const v2 = await run((ops) => ops.transit.encrypt('orders', plaintext));
      expect(v2).toMatch(/^vault:v2:/);
      expect(await run((ops) => ops.transit.decrypt('orders', v1))).toBe(plaintext);
      expect(await run((ops) => ops.transit.decrypt('orders', v2))).toBe(plaintext);
    });

    it('keeps no version of a rotation that was rolled back', async () => {
      const plaintext = Buffer.from('card 4111').toString('base64');
      const v1 = await run((ops) => ops.transit.encrypt('orders', plaintext));
      await refusal(
        run(async (ops) => {
          await ops.transit.rotate('orders');
          throw new VaultError('invalid', 'the request failed after rotating');
        }),
      );
      expect(await run((ops) => ops.transit.encrypt('orders', plaintext))).toMatch(/^vault:v1:/);
      expect(await run((ops) => ops.transit.read('orders'))).toMatchObject({ latest_version: 1 });
      expect(await run((ops) => ops.transit.decrypt('orders', v1))).toBe(plaintext);
      expect(await run((ops) => ops.transit.rotate('orders'))).toMatchObject({ latest_version: 2 });
      expect(await run((ops) => ops.transit.encrypt('orders', plaintext))).toMatch(/^vault:v2:/);
    });

    it.each([
      ['not base64 plaintext', (ops: Ops) => ops.transit.encrypt('k', 'no!base64')],
      ['a ciphertext without the vault prefix', (ops: Ops) => ops.transit.decrypt('k', 'abc')],
      [
        'a foreign ciphertext',
        (ops: Ops) => ops.transit.decrypt('k', `vault:v1:${Buffer.alloc(40).toString('base64')}`),
      ],
    ])('answers 400 for %s', async (_case, action) => {
      await run((ops) => ops.transit.encrypt('k', 'aGVsbG8='));
      expect((await refusal(run(action))).status).toBe(400);
    });
  });

  describe('audit', () => {
    it('records successes and refusals with token fields HMAC-ed under the cluster salt', async () => {
      await refusal(run((ops) => ops.kv.read('app/db')));
      await unseal();
      const entries = await new AuditLog(vault.sqlite.database.kysely, CLUSTER, Buffer.alloc(32)).query({
        limit: 100,
        offset: 0,
      });
      expect(entries.length).toBeGreaterThan(0);
      const first = entries[0]!;
      expect(first).toMatchObject({
        request: { operation: 'UPDATE', path: 'test', client_address: '127.0.0.1', user_agent: 'vitest' },
        response: { status: 503 },
        auth: { policies: ['root'] },
      });
      expect(first.request.client_token).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
      expect(JSON.stringify(entries)).not.toContain('platform-credential');
    });
  });

  it('destroys every record of a cluster', async () => {
    await unseal();
    await run((ops) => ops.kv.write('app/db', { a: 1 }));
    await vault.engine.destroy(CLUSTER);
    expect(await vault.engine.isInitialized(CLUSTER)).toBe(false);
    const { kysely } = vault.sqlite.database;
    expect(await kysely.selectFrom('vault_secret_versions').selectAll().execute()).toEqual([]);
    expect(await kysely.selectFrom('vault_audit_entries').selectAll().execute()).toEqual([]);
  });
});

type Ops = ClusterOperations;
