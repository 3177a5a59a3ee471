import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../control-plane/types.js';
import { offeredVersions } from '../../crds/database-engines/index.js';
import { placeOf, locationOf } from '../../workloads/kubernetes/artifacts.js';
import {
  cnpgBackupOutcome,
  databaseObservation,
  jobOutcome,
  shareObservation,
  type SecretObject,
} from '../../workloads/kubernetes/readiness.js';
import { mariadbInitSql } from '../../workloads/kubernetes/engines/mysql.js';
import { kubernetesEngine } from '../../workloads/kubernetes/engines/index.js';
import { createKubernetesRuntime, KUBERNETES_WORKLOAD_KINDS } from '../../workloads/kubernetes/index.js';
import { openEmbeddedStore } from '../../control-plane/embedded-store/index.js';
import { capturedLogger } from '../fixtures/captured-logger.js';
import { kubeName } from '../../workloads/kubernetes/names.js';
import {
  imageOf,
  renderSecret,
  renderStatefulSet,
  serviceHost,
  mariadbImage,
  versionOfImage,
} from '../../workloads/kubernetes/render.js';
import { DEFAULT_SETTINGS } from '../../workloads/kubernetes/settings.js';
import type { DatabaseAccess, DatabaseWorkload } from '../../workloads/runtime.js';

const database = (overrides: Partial<DatabaseWorkload> = {}): DatabaseWorkload => ({
  id: 'db_0123456789ab',
  organization: 'org-acme',
  engine: 'postgresql',
  storageGb: 1,
  ...overrides,
});

const secret = (password: string, resourceVersion = '7'): SecretObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db-0123456789ab-credentials', resourceVersion },
  data: { password: Buffer.from(password).toString('base64') },
});

const cluster = (status: Record<string, unknown>): KubeObject => ({
  apiVersion: 'postgresql.cnpg.io/v1',
  kind: 'Cluster',
  metadata: { name: 'db-0123456789ab' },
  spec: { instances: 1 },
  status,
});

const healthy = {
  readyInstances: 1,
  phase: 'Cluster in healthy state',
  image: 'ghcr.io/cloudnative-pg/postgresql:16.4',
  conditions: [{ type: 'Ready', status: 'True' }],
  secretsResourceVersion: { applicationSecretVersion: '7' },
};

const statefulSet = (annotation: string, status: Record<string, unknown>): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'db-0123456789ab', generation: 2 },
  spec: { template: { metadata: { annotations: { 'cloudplane.dev/credentials-version': annotation } } } },
  status,
});

const service: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db-0123456789ab' } };
const access = { host: 'h', port: 1, username: 'u', database: 'd', connectionString: 'x' } as DatabaseAccess;
const rolledOut = {
  observedGeneration: 2,
  readyReplicas: 1,
  updatedReplicas: 1,
  currentRevision: 'a',
  updateRevision: 'a',
};

describe('names', () => {
  it.each([
    ['db_0123456789ab', 'db-0123456789ab'],
    ['nfs_0123456789ab', 'nfs-0123456789ab'],
    ['bkp_0123456789ab', 'bkp-0123456789ab'],
  ])('%s is %s in a cluster', (id, name) => expect(kubeName(id)).toBe(name));

  it('refuses what cannot name an object', () => expect(() => kubeName('DB_x')).toThrow(/cannot name/));

  it.each([
    [database(), 'db-0123456789ab-rw.org-acme.svc'],
    [database({ engine: 'mysql' }), 'db-0123456789ab.org-acme.svc'],
  ])('the host of %o', (workload, host) => expect(serviceHost(workload)).toBe(host));
});

describe('images and versions', () => {
  it.each([
    [database({ engine: 'mysql' }), 'mariadb:10.11'],
    [database({ engine: 'mysql', version: '11.4' }), 'mariadb:11.4'],
    [database({ engine: 'redis', version: '7.2' }), 'redis:7.2'],
    [database({ version: '15' }), 'ghcr.io/cloudnative-pg/postgresql:15'],
  ])('%o runs %s', (workload, image) => expect(imageOf(DEFAULT_SETTINGS, workload)).toBe(image));

  it.each(['postgresql', 'mysql', 'redis', 'mongodb'])(
    "%s runs its engine module's image unless one is configured",
    (engine) => {
      const workload = database({ engine });
      expect(imageOf(DEFAULT_SETTINGS, workload)).toBe(kubernetesEngine(engine).image);
      const configured = { ...DEFAULT_SETTINGS, images: { [engine]: `registry.example/${engine}:1` } };
      expect(imageOf(configured, workload)).toBe(`registry.example/${engine}:1`);
      expect(imageOf(configured, database({ engine, version: '2' }))).toBe(`registry.example/${engine}:2`);
    },
  );

  it('refuses an image configured for an engine the runtime does not run', async () => {
    const store = openEmbeddedStore({ path: ':memory:', kinds: [...KUBERNETES_WORKLOAD_KINDS] });
    const { logger } = capturedLogger();
    expect(() => createKubernetesRuntime({ store, logger, images: { postgres: 'postgres:16' } })).toThrow(
      'an image is configured for postgres, an engine this cluster runtime does not run',
    );
    const runtime = createKubernetesRuntime({
      store,
      logger,
      images: { redis: 'redis:7.4', tools: 'busybox:1.37' },
    });
    expect(runtime.kind).toBe('kubernetes');
    await store.close();
  });

  it.each([
    ['ghcr.io/cloudnative-pg/postgresql:16.4', '16.4'],
    ['mariadb:10.11', '10.11'],
    ['localhost:5000/redis:7-alpine', '7'],
    ['redis', undefined],
  ])('%s reports version %s', (image, version) => expect(versionOfImage(image)).toBe(version));

  it.each(offeredVersions('postgresql'))(
    'runs PostgreSQL %s from the CloudNativePG image of that major',
    (major) => {
      expect(imageOf(DEFAULT_SETTINGS, database({ version: major }))).toBe(
        `ghcr.io/cloudnative-pg/postgresql:${major}`,
      );
    },
  );

  it.each([
    ['mariadb:10.11', true],
    ['docker.io/library/mariadb:11.4', true],
    ['mysql:8.0', false],
    ['registry.example/mariadb-proxy:1', false],
  ])('%s is MariaDB: %s', (image, mariadb) => expect(mariadbImage(image)).toBe(mariadb));
});

describe('where the password goes', () => {
  it('into the Secret, and into no StatefulSet', () => {
    for (const engine of ['mysql', 'redis', 'mongodb'] as const) {
      const workload = database({ engine });
      const rendered = JSON.stringify(renderSecret(workload, 'pa$$word', 'admin'));
      expect(rendered).toContain(Buffer.from('pa$$word').toString('base64'));
      expect(JSON.stringify(renderStatefulSet(DEFAULT_SETTINGS, workload, '7'))).not.toContain('pa$$word');
    }
  });

  it('quotes it in the MariaDB init file', () => {
    expect(mariadbInitSql(database({ engine: 'mysql' }), "it's\\")).toContain("IDENTIFIED BY 'it\\'s\\\\'");
  });
});

describe('database readiness', () => {
  it.each([
    ['no Cluster', { runsAs: 'CloudNativePG' as const, secret: secret('pw') }, 'pw', 'degraded'],
    ['no Secret', { runsAs: 'CloudNativePG' as const, server: cluster(healthy) }, 'pw', 'degraded'],
    [
      'another password',
      { runsAs: 'CloudNativePG' as const, server: cluster(healthy), secret: secret('old') },
      'pw',
      'degraded',
    ],
    [
      'not started',
      { runsAs: 'CloudNativePG' as const, server: cluster({}), secret: secret('pw') },
      'pw',
      'provisioning',
    ],
    [
      'the password not applied yet',
      { runsAs: 'CloudNativePG' as const, server: cluster(healthy), secret: secret('pw', '8') },
      'pw',
      'provisioning',
    ],
    [
      'healthy',
      { runsAs: 'CloudNativePG' as const, server: cluster(healthy), secret: secret('pw') },
      'pw',
      'ready',
    ],
    [
      'a StatefulSet without its Service',
      { runsAs: 'StatefulSet' as const, server: statefulSet('7', rolledOut), secret: secret('pw') },
      'pw',
      'degraded',
    ],
    [
      'a StatefulSet still on the old password',
      { runsAs: 'StatefulSet' as const, server: statefulSet('6', rolledOut), secret: secret('pw'), service },
      'pw',
      'provisioning',
    ],
    [
      'a StatefulSet rolling out',
      {
        runsAs: 'StatefulSet' as const,
        server: statefulSet('7', { ...rolledOut, updateRevision: 'b' }),
        secret: secret('pw'),
        service,
      },
      'pw',
      'provisioning',
    ],
    [
      'a StatefulSet ready',
      { runsAs: 'StatefulSet' as const, server: statefulSet('7', rolledOut), secret: secret('pw'), service },
      'pw',
      'ready',
    ],
  ])('%s: %s', (_case, objects, password, state) => {
    expect(databaseObservation(objects, password, access).state).toBe(state);
  });
});

describe('shares, Jobs and backups', () => {
  const claim = (phase?: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'nfs-0123456789ab', namespace: 'org-acme' },
    status: phase ? { phase } : {},
  });

  it.each([
    [undefined, 'degraded'],
    [claim(), 'provisioning'],
    [claim('Pending'), 'provisioning'],
    [claim('Bound'), 'ready'],
  ])('a share with claim %o is %s', (object, state) => expect(shareObservation(object, 5).state).toBe(state));

  const job = (status: Record<string, unknown>): KubeObject => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j' },
    status,
  });
  it.each([
    [job({}), { done: false }],
    [job({ succeeded: 1 }), { done: true, succeeded: true }],
    [
      job({ conditions: [{ type: 'Failed', status: 'True', message: 'BackoffLimitExceeded' }] }),
      { done: true, succeeded: false },
    ],
  ])('Job %o', (object, outcome) => expect(jobOutcome(object)).toMatchObject(outcome));

  it.each([
    ['running', { done: false }],
    ['completed', { done: true, succeeded: true }],
    ['failed', { done: true, succeeded: false }],
  ])('CloudNativePG backup %s', (phase, outcome) =>
    expect(cnpgBackupOutcome({ ...job({}), status: { phase } })).toMatchObject(outcome),
  );

  it('reads back the locations it writes', () => {
    const dump = {
      kind: 'dump' as const,
      namespace: 'org-acme',
      claim: 'cloudplane-backups',
      file: 'bkp_ab--mysql--db_0123456789ab.sql',
      engine: 'mysql',
      sourceId: 'db_0123456789ab',
    };
    expect(placeOf(locationOf(dump))).toEqual(dump);
    const cnpg = { kind: 'cnpg' as const, namespace: 'org-acme', name: 'bkp-ab' };
    expect(placeOf(locationOf(cnpg))).toEqual(cnpg);
    expect(() => placeOf('/var/lib/backups/x.tar.gz')).toThrow(/not made by the kubernetes runtime/);
  });
});
