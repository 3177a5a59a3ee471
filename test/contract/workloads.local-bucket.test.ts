import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Env } from '../../config/env.js';
import { workloadsConfig, type WorkloadsConfig } from '../../config/workloads.js';
import { authorizationOf } from '../../security/sigv4.js';
import { createLocalRuntime } from '../../workloads/local/index.js';
import { REDIS_SERVER } from '../../workloads/local/engines/redis-supervisor.js';
import { localShares } from '../../workloads/local/shares.js';
import {
  WorkloadError,
  type DatabaseWorkload,
  type ShareWorkload,
  type WorkloadRuntime,
} from '../../workloads/runtime.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { startS3Server, type S3Server } from '../fixtures/s3-server.js';
import { redisClient } from '../fixtures/workload-redis-client.js';
import { describeDatabaseRuntimeContract, describeShareRuntimeContract } from './workloads.contract.js';

const BUCKET = 'cloudplane-test-backups';
const REGION = 'eu-test-1';
const ACCESS_KEY_ID = 'AKIACLOUDPLANETEST01';
const SECRET_ACCESS_KEY = randomBytes(30).toString('base64');

const redisPresent = existsSync(REDIS_SERVER);
if (!redisPresent)
  console.warn(`SKIPPING the Redis contract with a backup bucket: ${REDIS_SERVER} is not installed`);

const startServer = (): Promise<S3Server> =>
  startS3Server({
    region: REGION,
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    buckets: [BUCKET],
  });

/** The settings `serve` would read with a bucket at the fixture server. */
const configFor = (dataDir: string, server: S3Server, extra: Env = {}): WorkloadsConfig =>
  workloadsConfig(
    {
      CLOUDPLANE_REDIS_PORTS: '26480-26499',
      CLOUDPLANE_BACKUP_S3_URL: server.url,
      CLOUDPLANE_BACKUP_S3_BUCKET: BUCKET,
      CLOUDPLANE_BACKUP_S3_REGION: REGION,
      CLOUDPLANE_BACKUP_S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
      CLOUDPLANE_BACKUP_S3_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
      ...extra,
    },
    { dataDir },
  );

const temporaryDir = (): Promise<string> => fs.mkdtemp(path.join(os.tmpdir(), 'cloudplane-bucket-'));

/** What is left on the platform host's disk where backup files are written. */
const localBackupFiles = async (dataDir: string): Promise<string[]> =>
  fs.readdir(path.join(dataDir, 'workloads', 'backups')).catch(() => []);

describe.skipIf(!redisPresent)('the local runtime with Redis and a backup bucket', () => {
  describeDatabaseRuntimeContract('local with a backup bucket', 'redis', async () => {
    const dir = await temporaryDir();
    const server = await startServer();
    const runtime = createLocalRuntime({ config: configFor(dir, server), logger: capturedLogger().logger });
    return {
      runtime,
      client: redisClient,
      organization: 'org-contract',
      async cleanup() {
        await runtime.close();
        await server.close();
        await fs.rm(dir, { recursive: true, force: true });
      },
    };
  });

  it('keeps a Redis snapshot as an object, not as a local file', async () => {
    const dir = await temporaryDir();
    const server = await startServer();
    const runtime = createLocalRuntime({ config: configFor(dir, server), logger: capturedLogger().logger });
    try {
      const database: DatabaseWorkload = {
        id: `db_${randomBytes(6).toString('hex')}`,
        organization: 'org-bucket',
        engine: 'redis',
        memoryMb: 32,
      };
      const secret = randomBytes(18).toString('base64url');
      await redisClient.write((await runtime.databases.ensure(database, secret)).access!, secret, 'saved');
      const id = `bkp_${randomBytes(6).toString('hex')}`;
      const artifact = await runtime.databases.backup(database, secret, id);
      const object = server.objects(BUCKET).get(`cloudplane-backups/org-bucket/${id}.rdb`);
      expect(object?.subarray(0, 5).toString('latin1')).toBe('REDIS');
      expect(artifact.sizeBytes).toBe(object?.length);
      expect(await localBackupFiles(dir)).toEqual([]);
      await runtime.databases.remove(database);
    } finally {
      await runtime.close();
      await server.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describeShareRuntimeContract('local with a backup bucket', async () => {
  const dir = await temporaryDir();
  const server = await startServer();
  const runtime = createLocalRuntime({ config: configFor(dir, server), logger: capturedLogger().logger });
  return {
    runtime,
    organization: 'org-contract',
    fill: (mountPath, file, bytes) => fs.writeFile(path.join(mountPath, file), randomBytes(bytes)),
    files: async (mountPath) => (await fs.readdir(mountPath)).sort(),
    async cleanup() {
      await runtime.close();
      await server.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
});

describe('backups in a bucket', () => {
  let dir: string;
  let server: S3Server;
  let captured: ReturnType<typeof capturedLogger>;
  let runtime: WorkloadRuntime;
  const backupId = () => `bkp_${randomBytes(6).toString('hex')}`;
  const share = (): ShareWorkload => ({
    id: `nfs_${randomBytes(6).toString('hex')}`,
    organization: 'org-bucket',
    sizeGb: 1,
  });

  /** A share holding one file, ready to back up. */
  const filledShare = async (runtimeToUse = runtime): Promise<ShareWorkload> => {
    const workload = share();
    const mount = (await runtimeToUse.shares.ensure(workload)).mount!;
    await fs.writeFile(path.join(mount.path, 'data.txt'), 'kept in the bucket');
    return workload;
  };

  beforeAll(async () => {
    dir = await temporaryDir();
    server = await startServer();
    captured = capturedLogger();
    runtime = createLocalRuntime({ config: configFor(dir, server), logger: captured.logger });
  });
  afterAll(async () => {
    await runtime?.close();
    await server?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it("keeps the backup as an object under the organization's folder, not as a local file", async () => {
    const id = backupId();
    const artifact = await runtime.shares.backup(await filledShare(), id);
    const key = `cloudplane-backups/org-bucket/${id}.tar.gz`;
    expect(artifact.location).toBe(`s3://${BUCKET}/${key}`);
    const object = server.objects(BUCKET).get(key);
    expect(object?.length).toBe(artifact.sizeBytes);
    expect(object?.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(await localBackupFiles(dir)).toEqual([]);
  });

  it('restores from the object and leaves no copy behind', async () => {
    const artifact = await runtime.shares.backup(await filledShare(), backupId());
    const target = share();
    const mount = (await runtime.shares.ensure(target)).mount!;
    await runtime.shares.restore(artifact, target);
    expect(await fs.readFile(path.join(mount.path, 'data.txt'), 'utf8')).toBe('kept in the bucket');
    expect(await localBackupFiles(dir)).toEqual([]);
  });

  it('moves a backup of several megabytes whole, both ways', async () => {
    const source = share();
    const mount = (await runtime.shares.ensure(source)).mount!;
    const content = randomBytes(6 * 1024 * 1024);
    await fs.writeFile(path.join(mount.path, 'big.bin'), content);
    const artifact = await runtime.shares.backup(source, backupId());
    expect(artifact.sizeBytes).toBeGreaterThan(6 * 1024 * 1024);
    const target = share();
    const targetMount = (await runtime.shares.ensure(target)).mount!;
    await runtime.shares.restore(artifact, target);
    expect((await fs.readFile(path.join(targetMount.path, 'big.bin'))).equals(content)).toBe(true);
  });

  it('deletes the object on removeBackup, and removing again is fine', async () => {
    const artifact = await runtime.shares.backup(await filledShare(), backupId());
    const key = artifact.location.slice(`s3://${BUCKET}/`.length);
    expect(server.objects(BUCKET).has(key)).toBe(true);
    await runtime.removeBackup(artifact);
    expect(server.objects(BUCKET).has(key)).toBe(false);
    await runtime.removeBackup(artifact);
  });

  it('says a backup whose object is gone is missing, and leaves no copy behind', async () => {
    const artifact = await runtime.shares.backup(await filledShare(), backupId());
    server.objects(BUCKET).clear();
    await expect(runtime.shares.restore(artifact, share())).rejects.toMatchObject({
      reason: 'BackupMissing',
      message: expect.stringContaining('NoSuchKey') as unknown,
    });
    expect(await localBackupFiles(dir)).toEqual([]);
  });

  it('still restores and removes a backup file taken before the bucket was configured', async () => {
    const before = localShares({ config: workloadsConfig({}, { dataDir: dir }), logger: captured.logger });
    const source = share();
    const sourceMount = (await before.ensure(source)).mount!;
    await fs.writeFile(path.join(sourceMount.path, 'old.txt'), 'from local disk');
    const artifact = await before.backup(source, backupId());
    const target = share();
    const mount = (await runtime.shares.ensure(target)).mount!;
    await runtime.shares.restore(artifact, target);
    expect(await fs.readdir(mount.path)).toEqual(['old.txt']);
    await runtime.removeBackup(artifact);
    expect(existsSync(artifact.location)).toBe(false);
  });

  it("refuses with the server's reason when the secret key is wrong, and says no key", async () => {
    const wrongSecret = randomBytes(30).toString('base64');
    const refusedDir = await temporaryDir();
    const logs = capturedLogger();
    const refused = createLocalRuntime({
      config: configFor(refusedDir, server, { CLOUDPLANE_BACKUP_S3_SECRET_ACCESS_KEY: wrongSecret }),
      logger: logs.logger,
    });
    try {
      const error = await refused.shares.backup(await filledShare(refused), backupId()).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(WorkloadError);
      expect(error).toMatchObject({ reason: 'BackupStorageFailed' });
      const message = (error as WorkloadError).message;
      expect(message).toContain('SignatureDoesNotMatch');
      for (const secret of [wrongSecret, SECRET_ACCESS_KEY, ACCESS_KEY_ID, 'Signature=', 'AWS4-HMAC-SHA256'])
        expect(message).not.toContain(secret);
      expect(message).not.toMatch(/[0-9a-f]{64}/);
      expect(JSON.stringify(logs.lines)).not.toContain(wrongSecret);
      expect(await localBackupFiles(refusedDir)).toEqual([]);
    } finally {
      await refused.close();
      await fs.rm(refusedDir, { recursive: true, force: true });
    }
  });

  it('says which bucket cannot be reached when nothing answers there', async () => {
    const unreachableDir = await temporaryDir();
    const gone = await startServer();
    await gone.close();
    const unreachable = createLocalRuntime({
      config: configFor(unreachableDir, gone),
      logger: capturedLogger().logger,
    });
    try {
      await expect(
        unreachable.shares.backup(await filledShare(unreachable), backupId()),
      ).rejects.toMatchObject({
        reason: 'BackupStorageFailed',
        message: expect.stringMatching(/did not answer \(ECONNREFUSED\)/) as unknown,
      });
    } finally {
      await unreachable.close();
      await fs.rm(unreachableDir, { recursive: true, force: true });
    }
  });
});

describe('Signature Version 4', () => {
  // The worked examples of the S3 documentation ("Signature Calculations for the Authorization
  // Header: Transferring Payload in a Single Chunk").
  const credentials = {
    accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    region: 'us-east-1',
  };

  it('signs the documented GET object example', () => {
    const payloadHash = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const authorization = authorizationOf(
      {
        method: 'GET',
        path: '/test.txt',
        headers: {
          host: 'examplebucket.s3.amazonaws.com',
          range: 'bytes=0-9',
          'x-amz-content-sha256': payloadHash,
          'x-amz-date': '20130524T000000Z',
        },
        payloadHash,
      },
      credentials,
    );
    expect(authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, ' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it('signs the documented PUT object example', () => {
    const payloadHash = '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072';
    const authorization = authorizationOf(
      {
        method: 'PUT',
        path: '/test%24file.text',
        headers: {
          host: 'examplebucket.s3.amazonaws.com',
          date: 'Fri, 24 May 2013 00:00:00 GMT',
          'x-amz-date': '20130524T000000Z',
          'x-amz-storage-class': 'REDUCED_REDUNDANCY',
          'x-amz-content-sha256': payloadHash,
        },
        payloadHash,
      },
      credentials,
    );
    expect(authorization).toContain(
      'Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
    );
  });
});
