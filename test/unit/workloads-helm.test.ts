import { existsSync, statSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/env.js';
import { workloadsConfig } from '../../config/workloads.js';
import { packageRoot } from '../../crds/registry.js';
import {
  kubernetesName,
  releaseName,
  resolveChart,
  runHelm,
  withValuesFile,
  type HelmConfig,
} from '../../workloads/helm.js';
import { revisionOf, upgradeArgs } from '../../workloads/kubernetes/releases.js';

const root = packageRoot(import.meta.url);
const FIXTURE_CHART = path.join(root, 'test/fixtures/charts/webapp');
const place = { dataDir: '/var/lib/cloudplane' };

describe('the stack settings', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['disabled', false],
    ['enabled', true],
  ])('CLOUDPLANE_LOCAL_JOBS=%j runs local jobs: %s', (value, expected) => {
    expect(workloadsConfig({ CLOUDPLANE_LOCAL_JOBS: value }, place).localJobs).toBe(expected);
  });

  it.each([
    ['CLOUDPLANE_LOCAL_JOBS', 'yes'],
    ['CLOUDPLANE_JOB_LOG_LIMIT_BYTES', '12'],
    ['CLOUDPLANE_STACK_CHART_REPOSITORIES', 'http://charts.example.com/'],
    ['CLOUDPLANE_STACK_CHART_REPOSITORIES', 'https://user:pass@charts.example.com/'],
    ['CLOUDPLANE_STACK_CHART_REPOSITORIES', 'charts.example.com'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => workloadsConfig({ [name]: value }, place)).toThrow(ConfigError);
  });

  it('defaults the log limit to 1 MiB and takes no remote chart', () => {
    const config = workloadsConfig({}, place);
    expect(config.jobLogLimitBytes).toBe(1_048_576);
    expect(config.chartRepositories).toEqual([]);
    expect(config.chartsDir).toBeUndefined();
  });

  it('reads repository prefixes, each ending in a slash', () => {
    const config = workloadsConfig(
      {
        CLOUDPLANE_STACK_CHART_REPOSITORIES: 'oci://registry.example.com/charts, https://charts.example.com/',
      },
      place,
    );
    expect(config.chartRepositories).toEqual([
      'oci://registry.example.com/charts/',
      'https://charts.example.com/',
    ]);
  });

  it('takes the configured helm, else the one npm run tools extracted, else none', () => {
    expect(workloadsConfig({ CLOUDPLANE_HELM_BINARY: '/opt/helm' }, place).helmBinary).toBe('/opt/helm');
    const pinned = path.join(root, '.tools/bin/helm');
    expect(workloadsConfig({ PATH: '' }, place).helmBinary).toBe(existsSync(pinned) ? pinned : undefined);
  });
});

describe('release names', () => {
  it.each([
    ['stk_0123456789ab-web', 'stk-0123456789ab-web'],
    ['web', 'web'],
  ])('%s is released as %s', (id, name) => {
    expect(releaseName(id)).toBe(name);
  });

  it.each([
    ['a long id', `stk_0123456789ab-${'service'.repeat(10)}-0001`],
    ['upper case and dots', 'Stk.Web'],
    ['a leading digit', '0stk-web'],
    ['a trailing hyphen', 'stk-web-'],
  ])('gives %s a valid name with a hash of the id', (_case, id) => {
    const name = releaseName(id);
    expect(name).toMatch(/^[a-z]([a-z0-9-]*[a-z0-9])?$/);
    expect(name.length).toBeLessThanOrEqual(53);
    expect(name).toMatch(/-[0-9a-f]{8}$|^r[0-9a-f]{8}$/);
    expect(releaseName(id)).toBe(name);
  });

  it('never gives two ids the same shortened name', () => {
    const stem = `stk_0123456789ab-${'x'.repeat(60)}`;
    expect(kubernetesName(`${stem}-1`, 53)).not.toBe(kubernetesName(`${stem}-2`, 53));
  });
});

describe('chart resolution', () => {
  let chartsDir: string;
  let outside: string;
  let config: HelmConfig;

  beforeAll(async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cloudplane-charts-'));
    chartsDir = path.join(dir, 'charts');
    outside = path.join(dir, 'outside');
    await fs.cp(FIXTURE_CHART, path.join(chartsDir, 'webapp'), { recursive: true });
    await fs.cp(FIXTURE_CHART, path.join(chartsDir, 'team', 'api'), { recursive: true });
    await fs.cp(FIXTURE_CHART, outside, { recursive: true });
    await fs.symlink(outside, path.join(chartsDir, 'linked-out'));
    await fs.symlink(path.join(chartsDir, 'webapp'), path.join(chartsDir, 'linked-in'));
    config = {
      helmBinary: undefined,
      chartsDir,
      chartRepositories: ['oci://registry.example.com/charts/', 'https://charts.example.com/'],
    };
  });
  afterAll(async () => {
    await fs.rm(path.dirname(chartsDir), { recursive: true, force: true });
  });

  it.each([
    ['webapp', 'webapp'],
    ['team/api', 'team/api'],
    ['linked-in', 'webapp'],
    ['./webapp/../team/api', 'team/api'],
  ])('finds %s in the charts directory', async (chart, found) => {
    expect(await resolveChart(chart, config)).toBe(path.join(await fs.realpath(chartsDir), found));
  });

  it.each(['oci://registry.example.com/charts/webapp', 'https://charts.example.com/webapp-1.0.0.tgz'])(
    'passes %s from an allowed repository on',
    async (chart) => {
      expect(await resolveChart(chart, config)).toBe(chart);
    },
  );

  it.each([
    ['a parent path', () => '../outside', 'ChartNotFound'],
    ['an absolute path outside', () => outside, 'ChartNotFound'],
    ['a symlink out', () => 'linked-out', 'ChartNotFound'],
    ['a missing chart', () => 'missing', 'ChartNotFound'],
    ['the directory itself', () => '.', 'ChartNotFound'],
    ['another registry', () => 'oci://registry.example.com.evil/charts/webapp', 'ChartNotAllowed'],
    ['another repository path', () => 'https://charts.example.com.evil/webapp.tgz', 'ChartNotAllowed'],
    ['plain http', () => 'http://charts.example.com/webapp.tgz', 'ChartNotAllowed'],
  ])('refuses %s', async (_case, chart, reason) => {
    await expect(resolveChart(chart(), config)).rejects.toMatchObject({ reason });
  });

  it('refuses a local chart when no charts directory is configured', async () => {
    await expect(resolveChart('webapp', { ...config, chartsDir: undefined })).rejects.toMatchObject({
      reason: 'ChartNotFound',
    });
  });
});

describe('running helm', () => {
  it('answers HelmFailed with its standard error, capped at 2 KB', async () => {
    const failed = runHelm({
      binary: '/bin/sh',
      args: ['-c', 'printf "%05000d" 0 >&2; exit 1'],
      timeoutMs: 5_000,
    });
    await expect(failed).rejects.toMatchObject({ reason: 'HelmFailed' });
    const error = (await failed.catch((caught: unknown) => caught)) as Error;
    expect(error.message).toHaveLength(2048);
  });

  it('stops helm when its time is up', async () => {
    await expect(
      runHelm({ binary: '/bin/sh', args: ['-c', 'sleep 5'], timeoutMs: 100 }),
    ).rejects.toMatchObject({
      reason: 'HelmFailed',
      message: 'helm did not finish within 0.1s',
    });
  });

  it('says helm is missing when the binary is not there', async () => {
    await expect(runHelm({ binary: '/nonexistent/helm', args: [], timeoutMs: 1_000 })).rejects.toMatchObject({
      reason: 'HelmFailed',
      message: expect.stringContaining('helm is not installed'),
    });
  });

  it('keeps the values in a file only this user reads, gone afterwards even on failure', async () => {
    const parent = await fs.mkdtemp(path.join(os.tmpdir(), 'cloudplane-values-'));
    let seen = '';
    await withValuesFile(parent, { password: 's3cret' }, async (file) => {
      seen = file;
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual({ password: 's3cret' });
    });
    expect(existsSync(seen)).toBe(false);
    await expect(withValuesFile(parent, {}, () => Promise.reject(new Error('helm failed')))).rejects.toThrow(
      'helm failed',
    );
    expect(await fs.readdir(parent)).toEqual([]);
    await fs.rm(parent, { recursive: true });
  });

  it('installs in the cluster with the values from a file, never on the command line', () => {
    const args = upgradeArgs(
      {
        id: 'stk_0123456789ab-web',
        organization: 'org-a',
        chart: 'webapp',
        version: '1.2.3',
        values: { password: 's3cret' },
        timeoutMs: 300_500,
      },
      '/charts/webapp',
      '/tmp/values.json',
    );
    expect(args).toEqual([
      'upgrade',
      '--install',
      '--namespace=org-a',
      '--wait',
      '--rollback-on-failure',
      '--timeout=301s',
      '--values=/tmp/values.json',
      '--version=1.2.3',
      '--',
      'stk-0123456789ab-web',
      '/charts/webapp',
    ]);
    expect(args.join(' ')).not.toContain('s3cret');
  });

  it.each([
    ['{"name":"web","revision":3,"status":"deployed"}', 3],
    ['{"name":"web"}', undefined],
    ['not json', undefined],
  ])('reads the revision of %s', (json, revision) => {
    expect(revisionOf(json)).toBe(revision);
  });
});
