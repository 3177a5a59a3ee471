import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { renderCrdFiles } from '../../crds/generate.js';
import { packageRoot } from '../../crds/registry.js';
import { widgetKind } from '../fixtures/crd-widget.js';

const repoRoot = packageRoot(import.meta.url);
const helm = path.join(repoRoot, '.tools/bin/helm');
const chart = path.join(repoRoot, 'charts/cloudplane');
const nonDefaultValues = path.join(chart, 'ci/non-default-values.yaml');
const databaseUrl = 'postgres://u@db:5432/cloudplane';

const helmPresent = fs.existsSync(helm);
if (!helmPresent) console.warn(`SKIPPING chart tests: ${helm} is missing; run npm run tools`);

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: Record<string, unknown>;
}
interface Container {
  name: string;
  args: string[];
  env: EnvVar[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe?: unknown;
  readinessProbe?: unknown;
  resources?: unknown;
  securityContext: unknown;
  volumeMounts: unknown[];
}
interface PodSpec {
  serviceAccountName: string;
  automountServiceAccountToken?: boolean;
  restartPolicy?: string;
  securityContext: unknown;
  containers: Container[];
  volumes: unknown[];
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}
interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

function helmTemplate(
  args: string[],
  chartDir = chart,
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(helm, ['template', 'cloudplane', chartDir, '--namespace', 'platform', ...args], {
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function render(args: string[], chartDir = chart): Manifest[] {
  const result = helmTemplate(args, chartDir);
  if (result.status !== 0) throw new Error(`helm template failed: ${result.stderr}`);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
}

function find(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (!found)
    throw new Error(`no ${kind} ${name} among ${manifests.map((m) => `${m.kind}/${m.metadata.name}`)}`);
  return found;
}

function podSpec(manifest: Manifest): PodSpec {
  type PodTemplate = { template: { spec: PodSpec } };
  if (manifest.kind === 'CronJob')
    return (manifest.spec as { jobTemplate: { spec: PodTemplate } }).jobTemplate.spec.template.spec;
  return (manifest.spec as PodTemplate).template.spec;
}

function container(manifest: Manifest): Container {
  return podSpec(manifest).containers[0]!;
}

function env(manifest: Manifest): Record<string, EnvVar> {
  return Object.fromEntries(container(manifest).env.map((entry) => [entry.name, entry]));
}

function rules(manifests: Manifest[], kind: 'ClusterRole' | 'Role', name: string): Rule[] {
  return find(manifests, kind, name).rules as Rule[];
}

const JOBS = ['usage-aggregation', 'meter-sync', 'garbage-collection'];
const WORKLOADS: [kind: string, name: string][] = [
  ['Deployment', 'cloudplane-operator'],
  ['Deployment', 'cloudplane-apiserver'],
  ...JOBS.map((job): [string, string] => ['CronJob', `cloudplane-${job}`]),
];

describe.skipIf(!helmPresent)('the cloudplane chart', () => {
  let defaults: Manifest[];
  let nonDefault: Manifest[];

  beforeAll(() => {
    defaults = render(['--set', `database.url=${databaseUrl}`]);
    nonDefault = render(['-f', nonDefaultValues]);
  });

  describe('scheduled jobs', () => {
    it.each([
      ['usage-aggregation', '0 * * * *', '*/30 * * * *'],
      ['meter-sync', '0 2 * * *', '30 4 * * *'],
      ['garbage-collection', '0 3 * * *', '15 5 * * 0'],
    ])(
      'runs %s on %s by default, on the configured schedule otherwise, never overlapping',
      (job, schedule, custom) => {
        expect(find(defaults, 'CronJob', `cloudplane-${job}`).spec).toMatchObject({
          schedule,
          timeZone: 'Etc/UTC',
          concurrencyPolicy: 'Forbid',
          successfulJobsHistoryLimit: 3,
          failedJobsHistoryLimit: 3,
          jobTemplate: { spec: { backoffLimit: 2, activeDeadlineSeconds: 3600 } },
        });
        expect(find(nonDefault, 'CronJob', `cp-${job}`).spec).toMatchObject({
          schedule: custom,
          timeZone: 'Europe/Berlin',
          concurrencyPolicy: 'Forbid',
          successfulJobsHistoryLimit: 1,
          failedJobsHistoryLimit: 5,
          jobTemplate: { spec: { backoffLimit: 4, activeDeadlineSeconds: 7200 } },
        });
      },
    );

    it.each(JOBS)('runs `cloudplane job %s`, restarting on failure, with no API token', (job) => {
      const cronJob = find(defaults, 'CronJob', `cloudplane-${job}`);
      expect(container(cronJob).args).toEqual(['job', job]);
      expect(podSpec(cronJob)).toMatchObject({
        serviceAccountName: 'cloudplane-jobs',
        automountServiceAccountToken: false,
        restartPolicy: 'OnFailure',
      });
    });

    it('collects garbage as a dry run keeping 30 days by default', () => {
      expect(env(find(defaults, 'CronJob', 'cloudplane-garbage-collection'))).toMatchObject({
        CLOUDPLANE_GC_DRY_RUN: { value: 'true' },
        CLOUDPLANE_GC_RETENTION_DAYS: { value: '30' },
      });
    });

    it('collects garbage for real keeping 60 days when configured so', () => {
      expect(env(find(nonDefault, 'CronJob', 'cp-garbage-collection'))).toMatchObject({
        CLOUDPLANE_GC_DRY_RUN: { value: 'false' },
        CLOUDPLANE_GC_RETENTION_DAYS: { value: '60' },
      });
    });

    it('gives the jobs service account no token', () => {
      expect(find(defaults, 'ServiceAccount', 'cloudplane-jobs').automountServiceAccountToken).toBe(false);
    });
  });

  describe('deployments', () => {
    it.each([
      ['operator', 'metrics', 8081],
      ['apiserver', 'http', 8080],
    ])('probes the %s on /health at its %s port (%i)', (component, port, number) => {
      const main = container(find(defaults, 'Deployment', `cloudplane-${component}`));
      expect(main.args).toEqual([component]);
      expect(main.ports).toEqual([{ name: port, containerPort: number }]);
      expect(main.livenessProbe).toMatchObject({ httpGet: { path: '/health', port } });
      expect(main.readinessProbe).toMatchObject({ httpGet: { path: '/health', port } });
      expect(env(find(defaults, 'Deployment', `cloudplane-${component}`))).toMatchObject({
        PORT: { value: String(number) },
        CLOUDPLANE_HOST: { value: '0.0.0.0' },
      });
    });

    it.each([
      ['operator', 2, 3],
      ['apiserver', 2, 3],
    ])(
      'runs %i %s replicas by default and the configured number otherwise',
      (component, replicas, custom) => {
        expect(find(defaults, 'Deployment', `cloudplane-${component}`).spec).toMatchObject({ replicas });
        expect(find(nonDefault, 'Deployment', `cp-${component}`).spec).toMatchObject({ replicas: custom });
      },
    );

    it('elects the operator leader in the release namespace, naming the pod', () => {
      expect(env(find(defaults, 'Deployment', 'cloudplane-operator'))).toMatchObject({
        CLOUDPLANE_LEADER_ELECTION_NAMESPACE: {
          valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } },
        },
        POD_NAME: { valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      });
    });

    it('exposes the apiserver on a ClusterIP service, port 80 to 8080', () => {
      expect(find(defaults, 'Service', 'cloudplane-apiserver').spec).toEqual({
        type: 'ClusterIP',
        selector: {
          'app.kubernetes.io/name': 'cloudplane',
          'app.kubernetes.io/instance': 'cloudplane',
          'app.kubernetes.io/component': 'apiserver',
        },
        ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }],
      });
    });

    it('keeps one apiserver up through disruptions only when there is more than one', () => {
      expect(find(defaults, 'PodDisruptionBudget', 'cloudplane-apiserver').spec).toMatchObject({
        minAvailable: 1,
      });
      const single = render(['--set', `database.url=${databaseUrl}`, '--set', 'apiserver.replicas=1']);
      expect(single.some((manifest) => manifest.kind === 'PodDisruptionBudget')).toBe(false);
    });
  });

  describe('every pod', () => {
    it.each(WORKLOADS)('%s %s runs as non-root with a read-only root and no capabilities', (kind, name) => {
      const pod = podSpec(find(defaults, kind, name));
      expect(pod.securityContext).toEqual({
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 1000,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(pod.containers[0]!.securityContext).toEqual({
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(pod.volumes).toEqual([{ name: 'tmp', emptyDir: {} }]);
      expect(pod.containers[0]!.volumeMounts).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
    });

    it.each(WORKLOADS)('%s %s reads DATABASE_URL from the chart Secret', (kind, name) => {
      expect(env(find(defaults, kind, name))).toMatchObject({
        DATABASE_URL: { valueFrom: { secretKeyRef: { name: 'cloudplane-database', key: 'DATABASE_URL' } } },
        CLOUDPLANE_LOG_LEVEL: { value: 'info' },
      });
    });

    it.each(WORKLOADS)(
      '%s %s takes the database, settings and extra env from non-default values',
      (kind, name) => {
        const variables = env(find(nonDefault, kind, name.replace(/^cloudplane-/, 'cp-')));
        expect(variables).toMatchObject({
          DATABASE_URL: { valueFrom: { secretKeyRef: { name: 'platform-db', key: 'url' } } },
          CLOUDPLANE_LOG_LEVEL: { value: 'debug' },
          CLOUDPLANE_BASE_URL: { value: 'https://cloud.example.com' },
          CLOUDPLANE_RATE_LIMIT_PER_MINUTE: { value: '5000' },
          HTTPS_PROXY: { valueFrom: { configMapKeyRef: { name: 'proxy', key: 'url' } } },
        });
      },
    );
  });

  describe('database', () => {
    it('stores database.url in a Secret', () => {
      const secret = find(defaults, 'Secret', 'cloudplane-database');
      expect(Buffer.from((secret.data as { DATABASE_URL: string }).DATABASE_URL, 'base64').toString()).toBe(
        databaseUrl,
      );
    });

    it('creates no Secret when an existing one is named', () => {
      expect(nonDefault.some((manifest) => manifest.kind === 'Secret')).toBe(false);
    });

    it.each([
      { when: 'no database is configured', args: [], message: 'database: cluster mode needs PostgreSQL' },
      {
        when: 'both database settings are given',
        args: ['--set', `database.url=${databaseUrl}`, '--set', 'database.existingSecret=db'],
        message: 'set either database.url or database.existingSecret, not both',
      },
      {
        when: 'the database URL is not PostgreSQL',
        args: ['--set', 'database.url=mysql://db/cloudplane'],
        message: "at '/database/url': 'mysql://db/cloudplane' does not match pattern",
      },
    ])('refuses to render when $when', ({ args, message }) => {
      const result = helmTemplate(args);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain(message);
    });
  });

  describe('values.schema.json', () => {
    it.each([
      ['bogus=1', "additional properties 'bogus' not allowed"],
      ['apiserver.replica=3', "additional properties 'replica' not allowed"],
      [
        'jobs.garbageCollection.dryRun=maybe',
        "at '/jobs/garbageCollection/dryRun': got string, want boolean",
      ],
      ['logLevel=loud', "at '/logLevel': value must be one of"],
      ['operator.replicas=0', "at '/operator/replicas': minimum: got 0, want 1"],
    ])('refuses --set %s', (setting, message) => {
      const result = helmTemplate(['--set', `database.url=${databaseUrl}`, '--set', setting]);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain(message);
    });
  });

  describe('RBAC without kinds', () => {
    it('lets the operator write status and finalizers, record events, read namespaces and nothing more', () => {
      expect(rules(defaults, 'ClusterRole', 'cloudplane-operator')).toEqual([
        { apiGroups: ['cloudplane.dev'], resources: ['*/status'], verbs: ['get', 'update', 'patch'] },
        { apiGroups: ['cloudplane.dev'], resources: ['*/finalizers'], verbs: ['update'] },
        { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
      ]);
    });

    it('lets the operator hold its Lease in the release namespace only', () => {
      expect(rules(defaults, 'Role', 'cloudplane-operator-leader-election')).toEqual([
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          verbs: ['get', 'list', 'watch', 'create', 'update'],
        },
      ]);
      expect(find(defaults, 'RoleBinding', 'cloudplane-operator-leader-election')).toMatchObject({
        roleRef: { kind: 'Role', name: 'cloudplane-operator-leader-election' },
        subjects: [{ kind: 'ServiceAccount', name: 'cloudplane-operator', namespace: 'platform' }],
      });
    });

    it.each([
      ['operator', 'cloudplane-operator'],
      ['apiserver', 'cloudplane-apiserver'],
    ])('binds the %s ClusterRole to its own service account', (_component, name) => {
      expect(find(defaults, 'ClusterRoleBinding', name)).toMatchObject({
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects: [{ kind: 'ServiceAccount', name, namespace: 'platform' }],
      });
      expect(find(defaults, 'ServiceAccount', name).automountServiceAccountToken).toBeUndefined();
    });

    it('lets the apiserver manage organization namespaces', () => {
      expect(rules(defaults, 'ClusterRole', 'cloudplane-apiserver')).toEqual([
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch', 'create'] },
      ]);
    });
  });

  describe('RBAC with a kind installed', () => {
    let dir: string;
    let withKind: Manifest[];

    beforeAll(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-chart-'));
      fs.cpSync(chart, path.join(dir, 'cloudplane'), { recursive: true });
      const files = renderCrdFiles([widgetKind], repoRoot);
      const crd = files.get('charts/cloudplane/crds/widgets.cloudplane.dev.yaml')!;
      fs.writeFileSync(path.join(dir, 'cloudplane/crds/widgets.cloudplane.dev.yaml'), crd);
      withKind = render(
        ['--set', `database.url=${databaseUrl}`, '--include-crds'],
        path.join(dir, 'cloudplane'),
      );
    });
    afterAll(() => {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('installs the CRD from the chart crds folder', () => {
      expect(find(withKind, 'CustomResourceDefinition', 'widgets.cloudplane.dev')).toBeDefined();
    });

    it('lets the operator manage the kind and write its status', () => {
      const operator = rules(withKind, 'ClusterRole', 'cloudplane-operator');
      expect(operator[0]).toEqual({
        apiGroups: ['cloudplane.dev'],
        resources: ['widgets'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      });
      expect(operator.slice(1)).toEqual(rules(defaults, 'ClusterRole', 'cloudplane-operator'));
    });

    it('lets the apiserver manage the kind by name, never its status', () => {
      const apiserver = rules(withKind, 'ClusterRole', 'cloudplane-apiserver');
      expect(apiserver).toEqual([
        {
          apiGroups: ['cloudplane.dev'],
          resources: ['widgets'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch', 'create'] },
      ]);
      expect(apiserver.flatMap((rule) => rule.resources).some((resource) => resource.includes('/'))).toBe(
        false,
      );
    });

    it('grants no rule every verb', () => {
      const all = withKind.filter((manifest) => manifest.kind === 'ClusterRole' || manifest.kind === 'Role');
      expect(all.flatMap((role) => role.rules as Rule[]).flatMap((rule) => rule.verbs)).not.toContain('*');
    });
  });
});
