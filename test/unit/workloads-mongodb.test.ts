import { describe, expect, it } from 'vitest';
import { workloadsConfig } from '../../config/workloads.js';
import { mongodbEngine } from '../../workloads/local/engines/mongodb.js';
import { WorkloadError, type DatabaseWorkload } from '../../workloads/runtime.js';
import { capturedLogger } from '../fixtures/captured-logger.js';

const engineWith = (mongodbAdminUrl: string | undefined) =>
  mongodbEngine({
    config: { ...workloadsConfig({}, { dataDir: '/nonexistent' }), mongodbAdminUrl },
    logger: capturedLogger().logger,
  });

const workload: DatabaseWorkload = {
  id: 'db_0123456789ab',
  organization: 'org-a',
  engine: 'mongodb',
  storageGb: 1,
};

describe('the local MongoDB engine', () => {
  it.each([
    [
      'no server is configured',
      undefined,
      /no MongoDB server is configured \(set CLOUDPLANE_MONGODB_ADMIN_URL\)/,
    ],
    [
      'a server is configured',
      'mongodb://admin:secret@127.0.0.1:27017',
      /CLOUDPLANE_MONGODB_ADMIN_URL is set, but this version has no MongoDB client/,
    ],
  ])('only records a database when %s, and says why', async (_case, url, why) => {
    const engine = engineWith(url);
    for (const observation of [await engine.ensure(workload, 'pw'), await engine.observe(workload, 'pw')]) {
      expect(observation).toEqual({
        realization: 'recorded',
        state: 'recorded',
        message: expect.stringMatching(why),
      });
      expect(observation.message).toMatch(/^MongoDB is only recorded on this machine/);
      expect(observation.message).not.toContain('secret');
    }
    await engine.remove(workload);
    await engine.remove(workload);
    await engine.close();
  });

  it('has nothing to back up or restore', async () => {
    const engine = engineWith(undefined);
    const backup = await engine.backup(workload, 'pw', 'bkp_0123').catch((error: unknown) => error);
    expect(backup).toBeInstanceOf(WorkloadError);
    expect(backup).toMatchObject({
      reason: 'Recorded',
      message: 'a recorded MongoDB database has no data to back up',
    });
    await expect(
      engine.restore({ location: '/nowhere', sizeBytes: 1 }, workload, 'pw'),
    ).rejects.toMatchObject({
      reason: 'Recorded',
    });
  });
});
