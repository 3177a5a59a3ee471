import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  DatabaseAccess,
  DatabaseEngine,
  DatabaseWorkload,
  ShareWorkload,
  WorkloadRuntime,
} from '../../workloads/runtime.js';

/**
 * What a client of one engine does in the contract: it talks to the database the way a user's
 * program would, over the access the runtime reported, and throws when the server refuses.
 */
export interface EngineClient {
  /** Stores `value` (a row in a table, a key), creating the table when needed. */
  write(access: DatabaseAccess, password: string, value: string): Promise<void>;
  /** Every value written so far, sorted. */
  read(access: DatabaseAccess, password: string): Promise<string[]>;
}

export interface DatabaseRuntimeFixture {
  runtime: WorkloadRuntime;
  client: EngineClient;
  /** The organization the cases' workloads belong to; a second one is derived from it. */
  organization: string;
  cleanup(): Promise<void>;
}

const password = (): string => randomBytes(18).toString('base64url');

/**
 * What a runtime must do for one real database engine, through the interface only. Cases use
 * fresh ids, so a long-lived runtime (a cluster) can run them; each removes what it made.
 */
export function describeDatabaseRuntimeContract(
  name: string,
  engine: DatabaseEngine,
  setup: () => Promise<DatabaseRuntimeFixture>,
  options: { timeoutMs?: number } = {},
): void {
  describe(`workload runtime contract: ${name} ${engine}`, { timeout: options.timeoutMs ?? 60_000 }, () => {
    let fixture: DatabaseRuntimeFixture;
    const made: DatabaseWorkload[] = [];

    beforeAll(async () => {
      fixture = await setup();
    }, 120_000);
    afterAll(async () => {
      if (!fixture) return;
      for (const workload of made) await fixture.runtime.databases.remove(workload).catch(() => undefined);
      await fixture.cleanup();
    }, 60_000);

    const workload = (organization = fixture.organization): DatabaseWorkload => {
      const created: DatabaseWorkload = {
        id: `db_${randomBytes(6).toString('hex')}`,
        organization,
        engine,
        ...(engine === 'redis' ? { memoryMb: 32 } : { storageGb: 1 }),
      };
      made.push(created);
      return created;
    };

    it('creates a database a client can use with the credentials it was given', async () => {
      const secret = password();
      const database = workload();
      const observation = await fixture.runtime.databases.ensure(database, secret);
      expect(observation).toMatchObject({ realization: 'real', state: 'ready' });
      expect(observation.version).toMatch(/^\d+(\.\d+)*/);
      const access = observation.access!;
      expect(access.port).toBeGreaterThan(0);
      expect(access.connectionString).toContain(encodeURIComponent(secret));
      await fixture.client.write(access, secret, 'first');
      expect(await fixture.client.read(access, secret)).toEqual(['first']);
    });

    it('ensures idempotently: the same access, the data kept', async () => {
      const secret = password();
      const database = workload();
      const first = await fixture.runtime.databases.ensure(database, secret);
      await fixture.client.write(first.access!, secret, 'kept');
      const again = await fixture.runtime.databases.ensure(database, secret);
      expect(again.access).toEqual(first.access);
      expect(await fixture.client.read(again.access!, secret)).toEqual(['kept']);
      const observed = await fixture.runtime.databases.observe(database, secret);
      expect(observed).toMatchObject({ realization: 'real', state: 'ready' });
    });

    it('changes the password: the old one stops working at once', async () => {
      const database = workload();
      const old = password();
      const first = await fixture.runtime.databases.ensure(database, old);
      await fixture.client.write(first.access!, old, 'before');
      const rotated = password();
      const second = await fixture.runtime.databases.ensure(database, rotated);
      await expect(fixture.client.read(second.access!, old)).rejects.toThrow();
      expect(await fixture.client.read(second.access!, rotated)).toEqual(['before']);
    });

    it("keeps tenants apart: one database's credentials do not open another's", async () => {
      const mine = workload();
      const theirs = workload(`${fixture.organization}-other`);
      const mySecret = password();
      const theirSecret = password();
      const myAccess = (await fixture.runtime.databases.ensure(mine, mySecret)).access!;
      const theirAccess = (await fixture.runtime.databases.ensure(theirs, theirSecret)).access!;
      await fixture.client.write(theirAccess, theirSecret, 'private');
      const intruder: DatabaseAccess = { ...theirAccess, username: myAccess.username };
      await expect(fixture.client.read(intruder, mySecret)).rejects.toThrow();
    });

    it('grows storage or memory in place', async () => {
      const secret = password();
      const database = workload();
      const first = await fixture.runtime.databases.ensure(database, secret);
      await fixture.client.write(first.access!, secret, 'small');
      const grown = {
        ...database,
        storageGb: (database.storageGb ?? 0) + 1,
        memoryMb: (database.memoryMb ?? 0) * 2,
      };
      const second = await fixture.runtime.databases.ensure(
        engine === 'redis'
          ? { ...database, memoryMb: grown.memoryMb }
          : { ...database, storageGb: grown.storageGb },
        secret,
      );
      expect(second.state).toBe('ready');
      expect(await fixture.client.read(second.access!, secret)).toEqual(['small']);
    });

    it('backs up and restores into another database with the rows', async () => {
      const source = workload();
      const sourceSecret = password();
      const sourceAccess = (await fixture.runtime.databases.ensure(source, sourceSecret)).access!;
      await fixture.client.write(sourceAccess, sourceSecret, 'one');
      await fixture.client.write(sourceAccess, sourceSecret, 'two');
      const artifact = await fixture.runtime.databases.backup(
        source,
        sourceSecret,
        `bkp_${randomBytes(6).toString('hex')}`,
      );
      expect(artifact.sizeBytes).toBeGreaterThan(0);
      const target = workload();
      const targetSecret = password();
      const targetAccess = (await fixture.runtime.databases.ensure(target, targetSecret)).access!;
      await fixture.runtime.databases.restore(artifact, target, targetSecret);
      expect(await fixture.client.read(targetAccess, targetSecret)).toEqual(['one', 'two']);
      await fixture.runtime.removeBackup(artifact);
      await fixture.runtime.removeBackup(artifact);
    });

    it('removes everything: the credentials stop working, removing again is fine', async () => {
      const secret = password();
      const database = workload();
      const access = (await fixture.runtime.databases.ensure(database, secret)).access!;
      await fixture.client.write(access, secret, 'gone');
      await fixture.runtime.databases.remove(database);
      await expect(fixture.client.read(access, secret)).rejects.toThrow();
      await fixture.runtime.databases.remove(database);
    });
  });
}

export interface ShareRuntimeFixture {
  runtime: WorkloadRuntime;
  organization: string;
  /** Writes `bytes` bytes into the share the way a client that mounted it would. */
  fill(mountPath: string, file: string, bytes: number): Promise<void>;
  /** The files in the share, sorted. */
  files(mountPath: string): Promise<string[]>;
  cleanup(): Promise<void>;
}

export function describeShareRuntimeContract(name: string, setup: () => Promise<ShareRuntimeFixture>): void {
  describe(`workload runtime contract: ${name} shares`, { timeout: 60_000 }, () => {
    let fixture: ShareRuntimeFixture;
    const made: ShareWorkload[] = [];
    beforeAll(async () => {
      fixture = await setup();
    }, 120_000);
    afterAll(async () => {
      if (!fixture) return;
      for (const share of made) await fixture.runtime.shares.remove(share).catch(() => undefined);
      await fixture.cleanup();
    });
    const share = (): ShareWorkload => {
      const created = {
        id: `nfs_${randomBytes(6).toString('hex')}`,
        organization: fixture.organization,
        sizeGb: 1,
      };
      made.push(created);
      return created;
    };

    it('creates a share with a mount and measures what it holds', async () => {
      const workload = share();
      const observation = await fixture.runtime.shares.ensure(workload);
      expect(observation.state).toBe('ready');
      expect(observation.mount?.path).toBeTruthy();
      await fixture.fill(observation.mount!.path, 'data.bin', 200_000);
      const observed = await fixture.runtime.shares.observe(workload);
      expect(observed.usedBytes).toBeGreaterThanOrEqual(200_000);
    });

    it('backs up and restores a share into another', async () => {
      const source = share();
      const mount = (await fixture.runtime.shares.ensure(source)).mount!;
      await fixture.fill(mount.path, 'a.txt', 10);
      await fixture.fill(mount.path, 'b.txt', 20);
      const artifact = await fixture.runtime.shares.backup(source, `bkp_${randomBytes(6).toString('hex')}`);
      expect(artifact.sizeBytes).toBeGreaterThan(0);
      const target = share();
      const targetMount = (await fixture.runtime.shares.ensure(target)).mount!;
      await fixture.runtime.shares.restore(artifact, target);
      expect(await fixture.files(targetMount.path)).toEqual(['a.txt', 'b.txt']);
      await fixture.runtime.removeBackup(artifact);
    });

    it('removes a share and its files; removing again is fine', async () => {
      const workload = share();
      const mount = (await fixture.runtime.shares.ensure(workload)).mount!;
      await fixture.fill(mount.path, 'x', 1);
      await fixture.runtime.shares.remove(workload);
      const observed = await fixture.runtime.shares.observe(workload);
      expect(observed.usedBytes).toBe(0);
      await fixture.runtime.shares.remove(workload);
    });
  });
}
