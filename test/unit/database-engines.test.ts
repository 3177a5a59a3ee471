import { describe, expect, it } from 'vitest';
import {
  acceptedEngineNames,
  allOfferedVersions,
  databaseEngineNames,
  databaseEngines,
  engineNamed,
  registerDatabaseEngine,
} from '../../crds/database-engines/index.js';
import { DATABASE } from '../../crds/data-services.js';
import { withSpecEnums } from '../../crds/structural-schema.js';
import { kubernetesEngine } from '../../workloads/kubernetes/engines/index.js';
import { recordedByDeclaration } from '../../workloads/local/engines/recorded.js';
import { WorkloadError, type DatabaseWorkload } from '../../workloads/runtime.js';

const workload = (engine: string): DatabaseWorkload => ({
  id: 'db_0123456789ab',
  organization: 'org-a',
  engine,
  storageGb: 1,
});

describe('the engine list', () => {
  it('holds the built-in engines in the order clients see them, with their other names', () => {
    expect(databaseEngineNames()).toEqual(['postgresql', 'mysql', 'redis', 'mongodb']);
    expect(acceptedEngineNames()).toEqual(['postgresql', 'mysql', 'redis', 'mongodb', 'mariadb']);
    expect(engineNamed('mariadb')).toBe('mysql');
    expect(engineNamed('oracle')).toBeUndefined();
    expect(allOfferedVersions()).toEqual(['14', '15', '16', '17', '10.11', '7', '7.0']);
  });

  it('gives every built-in engine a way to run in a cluster, under the same name', () => {
    for (const { name } of databaseEngines()) expect(kubernetesEngine(name).name).toBe(name);
  });

  it('says mongodb is only recorded on this machine, and no other built-in engine', () => {
    expect(
      databaseEngines()
        .filter((engine) => engine.recordedLocally)
        .map((engine) => engine.name),
    ).toEqual(['mongodb']);
  });

  it('writes the list into the Database CRD as the enums of spec.engine and spec.version', () => {
    const schema = { properties: { spec: { properties: { engine: { type: 'string' }, name: {} } } } };
    expect(withSpecEnums(schema, { engine: ['a', 'b'] })).toEqual({
      properties: { spec: { properties: { engine: { type: 'string', enum: ['a', 'b'] }, name: {} } } },
    });
    expect(DATABASE.specEnums?.()).toEqual({ engine: databaseEngineNames(), version: allOfferedVersions() });
    expect(() => withSpecEnums(schema, { missing: ['x'] })).toThrow(/spec\.missing/);
  });

  it('refuses an engine whose name or other name is taken', () => {
    const engine = {
      name: 'keydb',
      product: 'KeyDB',
      aliases: ['redis'],
      versions: ['6'],
      defaultVersion: '6',
      sizedBy: 'memory' as const,
      port: 6379,
    };
    expect(() => registerDatabaseEngine(engine)).toThrow(/taken by redis/);
    expect(() => registerDatabaseEngine({ ...engine, name: 'mysql', aliases: [] })).toThrow(/taken by mysql/);
    expect(databaseEngineNames()).not.toContain('keydb');
  });
});

describe('an engine no runtime has a server for', () => {
  const declaration = {
    name: 'cachedb',
    product: 'CacheDB',
    aliases: [],
    versions: ['1'],
    defaultVersion: '1',
    sizedBy: 'storage' as const,
    port: 1234,
  };

  it('is only recorded by the local runtime, which says why and has nothing to back up', async () => {
    const engine = recordedByDeclaration(declaration);
    expect(await engine.ensure(workload('cachedb'), 'pw')).toEqual({
      realization: 'recorded',
      state: 'recorded',
      message: 'CacheDB is only recorded on this machine: no local server is registered for it',
    });
    await expect(engine.backup(workload('cachedb'), 'pw', 'bkp_1')).rejects.toMatchObject({
      reason: 'Recorded',
      message: 'a recorded CacheDB database has no data to back up',
    });
    const why = recordedByDeclaration({ ...declaration, recordedLocally: 'its client is missing' });
    expect((await why.observe(workload('cachedb'), 'pw')).message).toBe(
      'CacheDB is only recorded on this machine: its client is missing',
    );
  });

  it('is refused by the Kubernetes runtime with a reason a condition can carry', () => {
    let failure: unknown;
    try {
      kubernetesEngine('cachedb');
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(WorkloadError);
    expect(failure).toMatchObject({ reason: 'UnsupportedEngine' });
  });
});
