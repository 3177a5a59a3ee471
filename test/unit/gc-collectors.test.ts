import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { KUBERNETES_API_KINDS } from '../../control-plane/built-in-kinds.js';
import { openEmbeddedStore, type EmbeddedStore } from '../../control-plane/embedded-store/index.js';
import type { KubeObject } from '../../control-plane/types.js';
import { BACKUP, DATABASE, NFS_SHARE } from '../../crds/data-services.js';
import { loadKinds } from '../../crds/registry.js';
import { VAULT_CLUSTER } from '../../crds/vault-cluster.js';
import { garbageCollection } from '../../jobs/garbage-collection.js';
import { findGcReport } from '../../jobs/garbage/reports.js';
import { runJob } from '../../jobs/job-runner.js';
import { createLogger } from '../../observability/logger.js';
import { openTestSqliteDatabase, type TestSqliteDatabase } from '../fixtures/db-sqlite.js';

const NOW = new Date('2024-05-01T03:00:00.000Z');
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const PROTECT = { 'cloudplane.dev/gc-protect': 'true' };

const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
const daysAgo = (days: number) => ago(days * DAY_MS);

function object(kind: string, name: string, spec: unknown, labels?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'cloudplane.dev/v1alpha1',
    kind,
    metadata: { name, namespace: 'org-a', ...(labels ? { labels } : {}) },
    spec,
  };
}

describe('garbage collectors', () => {
  let test: TestSqliteDatabase;
  let store: EmbeddedStore;
  let dir: string;

  beforeEach(async () => {
    test = await openTestSqliteDatabase();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-gc-'));
    store = openEmbeddedStore({
      path: path.join(dir, 'control-plane.db'),
      kinds: [...loadKinds(), ...KUBERNETES_API_KINDS],
    });
    await seedObjects();
    await seedRows();
    seedDirs();
  });

  afterEach(async () => {
    await store.close();
    await test.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function seedObjects(): Promise<void> {
    await store.create(DATABASE, object('Database', 'db-aaaaaaaaaaaa', { name: 'kept', engine: 'redis' }));
    await store.create(
      DATABASE,
      object('Database', 'db-999999999999', { name: 'keep-me', engine: 'postgresql' }, PROTECT),
    );
    await store.create(NFS_SHARE, object('NfsShare', 'nfs-dddddddddddd', { name: 'files', sizeGb: 1 }));
    await store.create(VAULT_CLUSTER, object('VaultCluster', 'kept', { name: 'kept' }));
    const source = { kind: 'Database', name: 'db_aaaaaaaaaaaa' };
    for (const [name, labels] of [
      ['bkp-111111111111', PROTECT],
      ['bkp-222222222222', undefined],
    ] as const) {
      const backup = await store.create(BACKUP, object('Backup', name, { source, retentionDays: 1 }, labels));
      await store.updateStatus(BACKUP, { ...backup, status: { phase: 'completed', expiresAt: daysAgo(3) } });
    }
  }

  async function seedRows(): Promise<void> {
    const { kysely } = test.database;
    await kysely
      .insertInto('users')
      .values({
        id: 'u1',
        email: 'u1@example.com',
        name: 'U',
        password_hash: null,
        avatar_url: null,
        email_verified: 1,
        two_factor_enabled: 0,
        totp_secret: null,
        totp_last_step: null,
        current_organization_id: null,
        created_at: daysAgo(90),
        updated_at: daysAgo(90),
      })
      .execute();
    const session = (id: string, expires: string) => ({
      id,
      user_id: 'u1',
      device: 'd',
      ip_address: '127.0.0.1',
      location: '',
      created_at: daysAgo(60),
      last_active: daysAgo(40),
      expires_at: expires,
      revoked_at: null,
    });
    await kysely
      .insertInto('sessions')
      .values([session('s-expired', daysAgo(1)), session('s-live', ago(-DAY_MS))])
      .execute();
    await kysely
      .insertInto('refresh_tokens')
      .values([
        {
          token_hash: 'r-expired',
          session_id: 's-expired',
          created_at: daysAgo(31),
          expires_at: daysAgo(1),
          spent_at: null,
        },
        {
          token_hash: 'r-live',
          session_id: 's-live',
          created_at: daysAgo(1),
          expires_at: ago(-DAY_MS),
          spent_at: null,
        },
      ])
      .execute();
    const emailToken = (hash: string, expires: string) => ({
      token_hash: hash,
      user_id: 'u1',
      purpose: 'verify_email' as const,
      created_at: daysAgo(2),
      expires_at: expires,
      used_at: null,
    });
    await kysely
      .insertInto('email_tokens')
      .values([emailToken('e-expired', ago(HOUR_MS)), emailToken('e-live', ago(-HOUR_MS))])
      .execute();
    const ticket = (hash: string, expires: string) => ({
      ticket_hash: hash,
      organization_id: 'org_a',
      principal_kind: 'user',
      principal_id: 'u1',
      scopes: '["*"]',
      created_at: ago(2 * HOUR_MS),
      expires_at: expires,
    });
    await kysely
      .insertInto('event_stream_tickets')
      .values([ticket('t-expired', ago(HOUR_MS)), ticket('t-live', ago(-60_000))])
      .execute();

    const sample = (resource: string, hour: string) => ({
      id: `database.storage_gb_hours:${resource}:${hour}`,
      organization: 'org_a',
      meter: 'database.storage_gb_hours',
      unit: 'GB-hour',
      resource_type: 'database',
      resource_id: resource,
      resource_name: resource,
      hour,
      quantity: 1,
      recorded_at: hour,
      plan: null,
    });
    const hourly = (resource: string, hour: string, provisional: 0 | 1) => ({
      organization: 'org_a',
      meter: 'database.storage_gb_hours',
      resource_id: resource,
      hour,
      resource_type: 'database',
      resource_name: resource,
      unit: 'GB-hour',
      plan: null,
      quantity: 1,
      samples: 1,
      provisional,
      aggregated_at: hour,
    });
    const old = '2024-03-01T00:00:00.000Z';
    const recent = '2024-04-30T00:00:00.000Z';
    await kysely
      .insertInto('usage_samples')
      .values([
        sample('db_old_aggregated', old),
        sample('db_old_unaggregated', old),
        sample('db_old_provisional', old),
        sample('db_recent', recent),
        sample('db_999999999999', old),
      ])
      .execute();
    await kysely
      .insertInto('usage_hourly')
      .values([
        hourly('db_old_aggregated', old, 0),
        hourly('db_old_provisional', old, 1),
        hourly('db_recent', recent, 0),
        hourly('db_999999999999', old, 0),
      ])
      .execute();

    // Garbage collection reads only cluster_id and created_at.
    const keyring = (cluster: string, created: string) => ({
      cluster_id: cluster,
      secret_shares: 1,
      secret_threshold: 1,
      auto_unseal: 1 as const,
      sealed_barrier_key: 'x',
      sealed_root_key: null,
      unsealed_root_key: null,
      sealed_audit_salt: 'x',
      created_at: created,
    });
    await kysely
      .insertInto('vault_keyrings')
      .values([
        keyring('org-a/kept', daysAgo(10)),
        keyring('org-a/gone', daysAgo(10)),
        keyring('org-a/fresh', ago(10 * 60_000)),
      ])
      .execute();
    const policy = (cluster: string) => ({
      cluster_id: cluster,
      name: 'p',
      description: '',
      rules: '',
      created_at: daysAgo(10),
      updated_at: daysAgo(10),
    });
    await kysely
      .insertInto('vault_policies')
      .values([policy('org-a/kept'), policy('org-a/gone'), policy('org-a/no-keyring')])
      .execute();

    const claim = (resource: string, created: string) => ({
      namespace: 'org-a',
      quota: 'databases',
      resource_id: resource,
      amount: 1,
      created_at: created,
    });
    await kysely
      .insertInto('quota_claims')
      .values([
        claim('db_aaaaaaaaaaaa', daysAgo(5)),
        claim('db_bbbbbbbbbbbb', daysAgo(5)),
        claim('nfs_cccccccccccc', ago(10 * 60_000)),
        claim('rst_000000000000', daysAgo(5)),
      ])
      .execute();
  }

  function workloadDir(...parts: string[]): string {
    return path.join(dir, 'workloads', ...parts);
  }

  function seedDirs(): void {
    const old = new Date(NOW.getTime() - 2 * DAY_MS);
    for (const parts of [
      ['shares', 'org-a', 'nfs_dddddddddddd'],
      ['shares', 'org-a', 'nfs_eeeeeeeeeeee'],
      ['redis', 'db_aaaaaaaaaaaa'],
      ['redis', 'db_ffffffffffff'],
    ]) {
      fs.mkdirSync(workloadDir(...parts), { recursive: true });
      fs.writeFileSync(path.join(workloadDir(...parts), 'data'), 'x');
      fs.utimesSync(workloadDir(...parts), old, old);
    }
  }

  async function run(env: Record<string, string>, withControlPlane = true) {
    const result = await runJob(
      garbageCollection,
      {
        database: test.database,
        config: loadConfig(env).jobs,
        logger: createLogger('silent'),
        now: () => NOW,
        ...(withControlPlane ? { store, workloadsDir: workloadDir() } : {}),
      },
      'schedule',
    );
    expect(result?.outcome).toBe('succeeded');
    return result!.summary as {
      report: string;
      candidates: Record<string, number>;
      deleted: number;
      protected: number;
      skipped: Record<string, string>;
      checks: Record<string, number>;
    };
  }

  const keys = async (table: 'sessions' | 'quota_claims' | 'vault_keyrings' | 'vault_policies') => {
    const { kysely } = test.database;
    if (table === 'sessions')
      return (await kysely.selectFrom('sessions').select('id').orderBy('id').execute()).map((r) => r.id);
    if (table === 'quota_claims')
      return (
        await kysely.selectFrom('quota_claims').select('resource_id').orderBy('resource_id').execute()
      ).map((r) => r.resource_id);
    return (await kysely.selectFrom(table).select('cluster_id').orderBy('cluster_id').execute()).map(
      (r) => r.cluster_id,
    );
  };

  const expectedItems = [
    { collector: 'quota_claims', resource: 'org-a/db_bbbbbbbbbbbb', age_days: 5 },
    { collector: 'vault_clusters', resource: 'org-a/gone', age_days: 10 },
    { collector: 'vault_clusters', resource: 'org-a/no-keyring', age_days: 0 },
    {
      collector: 'workload_dirs',
      resource: workloadDirPlaceholder('shares/org-a/nfs_eeeeeeeeeeee'),
      age_days: 2,
    },
    { collector: 'workload_dirs', resource: workloadDirPlaceholder('redis/db_ffffffffffff'), age_days: 2 },
    { collector: 'refresh_tokens', resource: '1 refresh_tokens rows', age_days: 0 },
    { collector: 'sessions', resource: '1 sessions rows', age_days: 0 },
    { collector: 'email_tokens', resource: '1 email_tokens rows', age_days: 0 },
    { collector: 'event_stream_tickets', resource: '1 event_stream_tickets rows', age_days: 0 },
    { collector: 'usage_samples', resource: '1 usage_samples rows', age_days: 30 },
    { collector: 'backups', resource: 'org-a/bkp-111111111111', age_days: 3 },
  ];

  function workloadDirPlaceholder(relative: string): string {
    return `<workloads>/${relative}`;
  }

  async function reportItems(id: string) {
    const report = await findGcReport(test.database, id);
    return report!.items.map((item) => ({
      ...item,
      resource: item.resource.replace(`${workloadDir()}${path.sep}`, '<workloads>/'),
    }));
  }

  it('reports every leftover in dry-run and deletes nothing', async () => {
    const summary = await run({});

    expect(summary.candidates).toMatchObject({
      quota_claims: 1,
      vault_clusters: 2,
      workload_dirs: 2,
      refresh_tokens: 1,
      sessions: 1,
      email_tokens: 1,
      two_factor_challenges: 0,
      oauth_login_states: 0,
      event_stream_tickets: 1,
      usage_samples: 1,
    });
    expect(summary).toMatchObject({
      deleted: 0,
      protected: 1,
      skipped: {},
      checks: { backups_past_retention: 1 },
    });
    const items = await reportItems(summary.report);
    expect(items).toEqual(
      expectedItems.map((item) => ({
        ...item,
        reason: expect.any(String),
        action: item.collector === 'backups' ? 'protected' : 'would delete',
      })),
    );
    expect(await keys('sessions')).toEqual(['s-expired', 's-live']);
    expect(await keys('quota_claims')).toHaveLength(4);
    expect(fs.existsSync(workloadDir('redis', 'db_ffffffffffff'))).toBe(true);
  });

  it('deletes leftovers when dry-run is off, and keeps live, fresh, protected and unknown ones', async () => {
    const summary = await run({ CLOUDPLANE_GC_DRY_RUN: 'false' });

    expect(summary.deleted).toBe(10);
    const items = await reportItems(summary.report);
    expect(items.filter((item) => item.action === 'deleted')).toHaveLength(expectedItems.length - 1);
    expect(await keys('sessions')).toEqual(['s-live']);
    expect(await keys('quota_claims')).toEqual(['db_aaaaaaaaaaaa', 'nfs_cccccccccccc', 'rst_000000000000']);
    expect(await keys('vault_keyrings')).toEqual(['org-a/fresh', 'org-a/kept']);
    expect(await keys('vault_policies')).toEqual(['org-a/kept']);
    expect(fs.existsSync(workloadDir('shares', 'org-a', 'nfs_dddddddddddd'))).toBe(true);
    expect(fs.existsSync(workloadDir('shares', 'org-a', 'nfs_eeeeeeeeeeee'))).toBe(false);
    expect(fs.existsSync(workloadDir('redis', 'db_aaaaaaaaaaaa'))).toBe(true);
    expect(fs.existsSync(workloadDir('redis', 'db_ffffffffffff'))).toBe(false);
    const samples = await test.database.kysely
      .selectFrom('usage_samples')
      .select('resource_id')
      .orderBy('resource_id')
      .execute();
    expect(samples.map((row) => row.resource_id)).toEqual([
      'db_999999999999',
      'db_old_provisional',
      'db_old_unaggregated',
      'db_recent',
    ]);
    const tokens = await test.database.kysely.selectFrom('refresh_tokens').select('token_hash').execute();
    expect(tokens).toEqual([{ token_hash: 'r-live' }]);
  });

  it('skips what needs the control plane when the process has none, and says so', async () => {
    const summary = await run({ CLOUDPLANE_GC_DRY_RUN: 'false' }, false);

    expect(summary.skipped).toEqual({
      quota_claims: 'no control plane',
      vault_clusters: 'no control plane',
      workload_dirs: 'no control plane',
      backups: 'no control plane',
    });
    expect(await keys('quota_claims')).toHaveLength(4);
    expect(await keys('vault_keyrings')).toHaveLength(3);
    expect(await keys('sessions')).toEqual(['s-live']);
    const report = await findGcReport(test.database, summary.report);
    expect(report?.skipped).toEqual(summary.skipped);
  });
});
