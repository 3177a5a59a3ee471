import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../../config/index.js';
import { renderCrdFiles } from '../../crds/generate.js';
import type { KindDescriptor } from '../../control-plane/kind-descriptor.js';
import { packageRoot } from '../../crds/registry.js';
import { widgetKind } from '../fixtures/crd-widget.js';

const repoRoot = packageRoot(import.meta.url);
const helm = path.join(repoRoot, '.tools/bin/helm');
const chart = path.join(repoRoot, 'charts/cloudplane');
const nonDefaultValues = path.join(chart, 'ci/non-default-values.yaml');
const databaseUrl = 'postgres://u@db:5432/cloudplane';
const platformKey = Buffer.alloc(32, 7).toString('base64');
/** What every render needs: the database and the platform key. */
const REQUIRED = ['--set', `database.url=${databaseUrl}`, '--set', `platformKey.value=${platformKey}`];

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

/**
 * A copy of the chart whose crds folder holds exactly the CRDs of `kinds`, so RBAC cases do not
 * depend on which kinds the product has installed today.
 */
function chartWithKinds(kinds: KindDescriptor[]): { dir: string; chartDir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-chart-'));
  const chartDir = path.join(dir, 'cloudplane');
  fs.cpSync(chart, chartDir, { recursive: true });
  for (const file of fs.readdirSync(path.join(chartDir, 'crds'))) {
    if (file.endsWith('.yaml')) fs.rmSync(path.join(chartDir, 'crds', file));
  }
  for (const [file, content] of renderCrdFiles(kinds, repoRoot)) {
    if (file.startsWith('charts/cloudplane/crds/')) {
      fs.writeFileSync(path.join(chartDir, 'crds', path.basename(file)), content);
    }
  }
  return { dir, chartDir };
}

/** The apiserver makes an organization's namespace before its first resource. */
const NAMESPACE_CREATE = { apiGroups: [''], resources: ['namespaces'], verbs: ['create'] };

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

function podSpecTemplate(manifest: Manifest): { metadata: { annotations?: Record<string, string> } } {
  return (manifest.spec as { template: { metadata: { annotations?: Record<string, string> } } }).template;
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
    defaults = render(REQUIRED);
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
      'runs the %s with %i replicas by default and the configured number otherwise',
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
      const single = render([...REQUIRED, '--set', 'apiserver.replicas=1']);
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

    it('creates no Secret when existing ones are named', () => {
      expect(nonDefault.some((manifest) => manifest.kind === 'Secret')).toBe(false);
    });

    it.each([
      {
        when: 'no database is configured',
        args: ['--set', `platformKey.value=${platformKey}`],
        message: 'database: cluster mode needs PostgreSQL',
      },
      {
        when: 'both database settings are given',
        args: [...REQUIRED, '--set', 'database.existingSecret=db'],
        message: 'set either database.url or database.existingSecret, not both',
      },
      {
        when: 'the database URL is not PostgreSQL',
        args: [...REQUIRED, '--set', 'database.url=mysql://db/cloudplane'],
        message: "at '/database/url': 'mysql://db/cloudplane' does not match pattern",
      },
    ])('refuses to render when $when', ({ args, message }) => {
      const result = helmTemplate(args);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain(message);
    });
  });

  describe('accounts settings', () => {
    const SERVERS = ['operator', 'apiserver'];
    /** Every variable the chart may give the servers beyond what every pod gets. */
    const SERVER_VARIABLES = [
      'CLOUDPLANE_KMS_KEY',
      'CLOUDPLANE_SMTP_URL',
      'CLOUDPLANE_MAIL_FROM',
      'CLOUDPLANE_ACCESS_TOKEN_TTL',
      'CLOUDPLANE_REFRESH_TOKEN_TTL',
      'CLOUDPLANE_LOGIN_MAX_FAILURES',
      'CLOUDPLANE_LOGIN_MAX_FAILURES_PER_ADDRESS',
      'CLOUDPLANE_LOGIN_LOCKOUT_SECONDS',
      'CLOUDPLANE_METRICS_TOKEN',
      'CLOUDPLANE_OAUTH_REDIRECT_URIS',
      'CLOUDPLANE_OAUTH_IDENTITY_ISSUER',
      'CLOUDPLANE_OAUTH_IDENTITY_CLIENT_ID',
      'CLOUDPLANE_OAUTH_IDENTITY_CLIENT_SECRET',
      'CLOUDPLANE_OAUTH_CODEHOST_CLIENT_ID',
      'CLOUDPLANE_OAUTH_CODEHOST_CLIENT_SECRET',
      'CLOUDPLANE_OAUTH_CODEHOST_AUTHORIZE_URL',
      'CLOUDPLANE_OAUTH_CODEHOST_TOKEN_URL',
      'CLOUDPLANE_OAUTH_CODEHOST_USER_URL',
      'CLOUDPLANE_OAUTH_CODEHOST_EMAILS_URL',
      'CLOUDPLANE_OAUTH_CODEHOST_SCOPES',
    ];
    const SECRET_VALUES = {
      smtpUrl: 'smtps://mailer:p%40ss@smtp.example.com:465',
      metricsToken: 'scrape-me-0123456789abcdef',
      identitySecret: 'identity client secret',
      codehostSecret: 'codehost client secret',
    };
    /** Every setting, the secret ones as values the chart keeps in its own Secret. */
    const ALL_AS_VALUES = [
      ...REQUIRED,
      ...['--set', `mail.smtpUrl=${SECRET_VALUES.smtpUrl}`],
      ...['--set', 'mail.from=Cloudplane <no-reply@cloud.example.com>'],
      ...['--set', 'accounts.accessTokenTtlSeconds=600'],
      ...['--set', 'accounts.refreshTokenTtlSeconds=2592000'],
      ...['--set', 'accounts.login.maxFailures=8'],
      ...['--set', 'accounts.login.maxFailuresPerAddress=200'],
      ...['--set', 'accounts.login.lockoutSeconds=1800'],
      ...['--set', `metrics.token=${SECRET_VALUES.metricsToken}`],
      ...['--set', 'oauth.redirectUris={https://console.example.com/done,http://localhost:3000/cb}'],
      ...['--set', 'oauth.identity.issuer=https://id.example.com'],
      ...['--set', 'oauth.identity.clientId=cloudplane'],
      ...['--set', `oauth.identity.clientSecret=${SECRET_VALUES.identitySecret}`],
      ...['--set', 'oauth.codehost.clientId=Iv1.cloudplane'],
      ...['--set', `oauth.codehost.clientSecret=${SECRET_VALUES.codehostSecret}`],
      ...['--set', 'oauth.codehost.tokenUrl=https://git.example.com/login/oauth/access_token'],
      ...['--set', 'oauth.codehost.scopes={read:user,read:org}'],
    ];
    /** The Secrets `ci/non-default-values.yaml` names, as a cluster would hold them. */
    const EXISTING_SECRETS: Record<string, Record<string, string>> = {
      'platform-db': { url: databaseUrl },
      'platform-key': { key: platformKey },
      'platform-smtp': { url: SECRET_VALUES.smtpUrl },
      'platform-metrics': { token: SECRET_VALUES.metricsToken },
      'platform-oauth': { identity: SECRET_VALUES.identitySecret, codehost: SECRET_VALUES.codehostSecret },
    };
    let allAsValues: Manifest[];

    beforeAll(() => {
      allAsValues = render(ALL_AS_VALUES);
    });

    /** The container's environment as the kubelet would hand it over: secretKeyRefs resolved. */
    function resolvedEnv(
      manifests: Manifest[],
      workload: Manifest,
      existing: Record<string, Record<string, string>> = {},
    ): Record<string, string> {
      const secrets = { ...existing };
      for (const manifest of manifests.filter((candidate) => candidate.kind === 'Secret')) {
        const data = manifest.data as Record<string, string>;
        secrets[manifest.metadata.name] = Object.fromEntries(
          Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]),
        );
      }
      const resolved: Record<string, string> = {};
      for (const variable of container(workload).env) {
        const ref = variable.valueFrom?.secretKeyRef as { name: string; key: string } | undefined;
        const value = ref ? secrets[ref.name]?.[ref.key] : variable.value;
        if (ref && value === undefined) throw new Error(`${variable.name}: no key ${ref.key} in ${ref.name}`);
        if (value !== undefined) resolved[variable.name] = value;
      }
      return resolved;
    }

    it.each(SERVERS)('gives the %s only the platform key, from the chart Secret, by default', (server) => {
      const variables = env(find(defaults, 'Deployment', `cloudplane-${server}`));
      expect(variables.CLOUDPLANE_KMS_KEY).toEqual({
        name: 'CLOUDPLANE_KMS_KEY',
        valueFrom: { secretKeyRef: { name: 'cloudplane-secrets', key: 'CLOUDPLANE_KMS_KEY' } },
      });
      expect(SERVER_VARIABLES.filter((name) => name in variables)).toEqual(['CLOUDPLANE_KMS_KEY']);
      const secret = find(defaults, 'Secret', 'cloudplane-secrets');
      expect(Object.keys(secret.data as object)).toEqual(['CLOUDPLANE_KMS_KEY']);
    });

    it.each(WORKLOADS.filter(([kind]) => kind === 'CronJob'))(
      'gives %s %s none of them, not even the platform key',
      (kind, name) => {
        for (const [manifests, workload] of [
          [allAsValues, name],
          [nonDefault, name.replace(/^cloudplane-/, 'cp-')],
        ] as const) {
          const variables = env(find(manifests, kind, workload));
          expect(SERVER_VARIABLES.filter((variable) => variable in variables)).toEqual([]);
        }
      },
    );

    it('gives the operator only the platform key and the metrics token, which its code uses', () => {
      const variables = env(find(nonDefault, 'Deployment', 'cp-operator'));
      expect(SERVER_VARIABLES.filter((name) => name in variables)).toEqual([
        'CLOUDPLANE_KMS_KEY',
        'CLOUDPLANE_METRICS_TOKEN',
      ]);
    });

    it.each(['apiserver'])(
      'gives the %s every setting of non-default values, secrets from their Secrets',
      (server) => {
        expect(env(find(nonDefault, 'Deployment', `cp-${server}`))).toMatchObject({
          CLOUDPLANE_KMS_KEY: { valueFrom: { secretKeyRef: { name: 'platform-key', key: 'key' } } },
          CLOUDPLANE_SMTP_URL: { valueFrom: { secretKeyRef: { name: 'platform-smtp', key: 'url' } } },
          CLOUDPLANE_MAIL_FROM: { value: 'Cloudplane <no-reply@cloud.example.com>' },
          CLOUDPLANE_ACCESS_TOKEN_TTL: { value: '600' },
          CLOUDPLANE_REFRESH_TOKEN_TTL: { value: '1209600' },
          CLOUDPLANE_LOGIN_MAX_FAILURES: { value: '8' },
          CLOUDPLANE_LOGIN_MAX_FAILURES_PER_ADDRESS: { value: '200' },
          CLOUDPLANE_LOGIN_LOCKOUT_SECONDS: { value: '1800' },
          CLOUDPLANE_METRICS_TOKEN: {
            valueFrom: { secretKeyRef: { name: 'platform-metrics', key: 'token' } },
          },
          CLOUDPLANE_OAUTH_REDIRECT_URIS: {
            value: 'https://console.cloud.example.com/oauth/done,https://cli.cloud.example.com/callback',
          },
          CLOUDPLANE_OAUTH_IDENTITY_ISSUER: { value: 'https://id.example.com/realms/platform' },
          CLOUDPLANE_OAUTH_IDENTITY_CLIENT_ID: { value: 'cloudplane' },
          CLOUDPLANE_OAUTH_IDENTITY_CLIENT_SECRET: {
            valueFrom: { secretKeyRef: { name: 'platform-oauth', key: 'identity' } },
          },
          CLOUDPLANE_OAUTH_CODEHOST_CLIENT_ID: { value: 'Iv1.cloudplane' },
          CLOUDPLANE_OAUTH_CODEHOST_CLIENT_SECRET: {
            valueFrom: { secretKeyRef: { name: 'platform-oauth', key: 'codehost' } },
          },
          CLOUDPLANE_OAUTH_CODEHOST_AUTHORIZE_URL: { value: 'https://git.example.com/login/oauth/authorize' },
          CLOUDPLANE_OAUTH_CODEHOST_TOKEN_URL: { value: 'https://git.example.com/login/oauth/access_token' },
          CLOUDPLANE_OAUTH_CODEHOST_USER_URL: { value: 'https://git.example.com/api/v3/user' },
          CLOUDPLANE_OAUTH_CODEHOST_EMAILS_URL: { value: 'https://git.example.com/api/v3/user/emails' },
          CLOUDPLANE_OAUTH_CODEHOST_SCOPES: { value: 'read:user user:email read:org' },
        });
      },
    );

    it('keeps secret settings given as values in the chart Secret, and reads them from it', () => {
      const secret = find(allAsValues, 'Secret', 'cloudplane-secrets');
      const stored = Object.fromEntries(
        Object.entries(secret.data as Record<string, string>).map(([key, value]) => [
          key,
          Buffer.from(value, 'base64').toString(),
        ]),
      );
      expect(stored).toEqual({
        CLOUDPLANE_KMS_KEY: platformKey,
        CLOUDPLANE_SMTP_URL: SECRET_VALUES.smtpUrl,
        CLOUDPLANE_METRICS_TOKEN: SECRET_VALUES.metricsToken,
        CLOUDPLANE_OAUTH_IDENTITY_CLIENT_SECRET: SECRET_VALUES.identitySecret,
        CLOUDPLANE_OAUTH_CODEHOST_CLIENT_SECRET: SECRET_VALUES.codehostSecret,
      });
      const operatorKeys = ['CLOUDPLANE_KMS_KEY', 'CLOUDPLANE_METRICS_TOKEN'];
      for (const server of SERVERS) {
        const variables = env(find(allAsValues, 'Deployment', `cloudplane-${server}`));
        const keys = server === 'operator' ? operatorKeys : Object.keys(stored);
        expect(Object.keys(stored).filter((key) => key in variables)).toEqual(keys);
        for (const key of keys) {
          expect(variables[key]).toEqual({
            name: key,
            valueFrom: { secretKeyRef: { name: 'cloudplane-secrets', key } },
          });
        }
        const rendered = JSON.stringify(container(find(allAsValues, 'Deployment', `cloudplane-${server}`)));
        for (const value of Object.values(SECRET_VALUES)) expect(rendered).not.toContain(value);
      }
    });

    it.each(SERVERS)('rolls the %s when a secret setting in the chart Secret changes', (server) => {
      const annotations = (manifests: Manifest[]) =>
        (podSpecTemplate(find(manifests, 'Deployment', `cloudplane-${server}`)).metadata.annotations ??
          {}) as Record<string, string>;
      const rotated = render([...ALL_AS_VALUES, '--set', 'metrics.token=rotated-token-0123456789']);
      expect(annotations(allAsValues)['checksum/secrets']).toMatch(/^[0-9a-f]{64}$/);
      expect(annotations(rotated)['checksum/secrets']).not.toBe(annotations(allAsValues)['checksum/secrets']);
    });

    it.each([
      { values: 'given as values', manifests: () => allAsValues, name: 'cloudplane-apiserver', existing: {} },
      {
        values: 'of ci/non-default-values.yaml',
        manifests: () => nonDefault,
        name: 'cp-apiserver',
        existing: EXISTING_SECRETS,
      },
    ])(
      'renders an environment the apiserver loads, with every setting $values',
      ({ manifests, name, existing }) => {
        const rendered = manifests();
        const config = loadConfig(resolvedEnv(rendered, find(rendered, 'Deployment', name), existing));
        expect(config.platformKey.kmsKey).toEqual(Buffer.alloc(32, 7));
        expect(config.mail.smtpUrl).toBe(SECRET_VALUES.smtpUrl);
        expect(config.mail.from).toBe('Cloudplane <no-reply@cloud.example.com>');
        expect(config.http.metricsToken).toBe(SECRET_VALUES.metricsToken);
        expect(config.accounts).toMatchObject({ accessTokenTtlSeconds: 600, loginMaxFailures: 8 });
        expect(config.oauth.identity?.clientSecret).toBe(SECRET_VALUES.identitySecret);
        expect(config.oauth.codehost?.clientSecret).toBe(SECRET_VALUES.codehostSecret);
        expect(config.oauth.redirectUris.length).toBe(2);
      },
    );

    it.each([
      {
        when: 'no platform key is given',
        args: ['--set', `database.url=${databaseUrl}`],
        message:
          'platformKey: cluster mode needs the platform key CLOUDPLANE_KMS_KEY, which every secret at rest is sealed under; set platformKey.value (from: openssl rand -base64 32), or platformKey.existingSecret and platformKey.existingSecretKey',
      },
      {
        when: 'both platform key settings are given',
        args: [...REQUIRED, '--set', 'platformKey.existingSecret=key'],
        message: 'platformKey: set either platformKey.value or platformKey.existingSecret, not both',
      },
      {
        when: 'both SMTP settings are given',
        args: [...REQUIRED, '--set', 'mail.smtpUrl=smtp://relay:25', '--set', 'mail.existingSecret=smtp'],
        message: 'mail: set either mail.smtpUrl or mail.existingSecret, not both',
      },
      {
        when: 'a provider has a client id but no client secret',
        args: [...REQUIRED, '--set', 'oauth.codehost.clientId=Iv1.cloudplane'],
        message: 'oauth.codehost: a clientId needs its client secret',
      },
      {
        when: 'the identity provider has no issuer',
        args: [
          ...REQUIRED,
          '--set',
          'oauth.identity.clientId=cp',
          '--set',
          'oauth.identity.existingSecret=s',
        ],
        message: 'oauth.identity: a clientId needs oauth.identity.issuer',
      },
      {
        when: 'a provider is on without a redirect URI',
        args: [...REQUIRED, '--set', 'oauth.codehost.clientId=cp', '--set', 'oauth.codehost.clientSecret=s'],
        message: 'oauth.redirectUris: at least one URI is needed once oauth.codehost.clientId is set',
      },
      {
        when: 'the platform key is not 32 bytes of base64',
        args: ['--set', `database.url=${databaseUrl}`, '--set', 'platformKey.value=too-short'],
        message: "at '/platformKey/value': 'too-short' does not match pattern",
      },
      {
        when: 'the SMTP URL is not smtp or smtps',
        args: [...REQUIRED, '--set', 'mail.smtpUrl=http://relay'],
        message: "at '/mail/smtpUrl': 'http://relay' does not match pattern",
      },
      {
        when: 'a lifetime is out of range',
        args: [...REQUIRED, '--set', 'accounts.accessTokenTtlSeconds=30'],
        message: "at '/accounts/accessTokenTtlSeconds': minimum: got 30, want 60",
      },
      {
        when: 'the metrics token is short',
        args: [...REQUIRED, '--set', 'metrics.token=short'],
        message: "at '/metrics/token': 'short' does not match pattern",
      },
      {
        when: 'a redirect URI has a fragment',
        args: [...REQUIRED, '--set', 'oauth.redirectUris={https://console.example.com/#done}'],
        message: "at '/oauth/redirectUris/0'",
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
      const result = helmTemplate([...REQUIRED, '--set', setting]);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain(message);
    });
  });

  describe('RBAC without kinds', () => {
    let dir: string;
    let withoutKinds: Manifest[];

    beforeAll(() => {
      const copy = chartWithKinds([]);
      dir = copy.dir;
      withoutKinds = render(REQUIRED, copy.chartDir);
    });
    afterAll(() => {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('lets the operator write status and finalizers, record events, delete emptied namespaces, run data services and stack services, and nothing more', () => {
      const dataServiceVerbs = ['get', 'create', 'patch', 'delete'];
      expect(rules(withoutKinds, 'ClusterRole', 'cloudplane-operator')).toEqual([
        { apiGroups: ['cloudplane.dev'], resources: ['*/status'], verbs: ['update', 'patch'] },
        { apiGroups: ['cloudplane.dev'], resources: ['*/finalizers'], verbs: ['update'] },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'delete'] },
        { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch', 'get', 'list', 'delete'] },
        { apiGroups: ['postgresql.cnpg.io'], resources: ['clusters', 'backups'], verbs: dataServiceVerbs },
        { apiGroups: ['apps'], resources: ['statefulsets'], verbs: dataServiceVerbs },
        {
          apiGroups: [''],
          resources: ['services', 'secrets', 'persistentvolumeclaims'],
          verbs: dataServiceVerbs,
        },
        { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'create', 'delete'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
        { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
        { apiGroups: [''], resources: ['secrets'], verbs: ['list', 'update'] },
        {
          apiGroups: ['apps'],
          resources: ['deployments'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        {
          apiGroups: [''],
          resources: ['services', 'configmaps'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        { apiGroups: ['kafka.strimzi.io'], resources: ['kafkas', 'kafkanodepools'], verbs: dataServiceVerbs },
        {
          apiGroups: ['kafka.strimzi.io'],
          resources: ['kafkatopics', 'kafkausers'],
          verbs: ['get', 'list', 'create', 'patch', 'delete'],
        },
        {
          apiGroups: ['kafka.strimzi.io'],
          resources: ['kafkaconnects', 'kafkaconnectors'],
          verbs: ['get', 'list', 'create', 'patch', 'delete'],
        },
        {
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['roles', 'rolebindings'],
          verbs: ['get', 'create', 'patch', 'delete'],
        },
      ]);
    });

    it('lets the operator hold its Lease in the release namespace only', () => {
      expect(rules(defaults, 'Role', 'cloudplane-operator-leader-election')).toEqual([
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          verbs: ['get', 'create', 'update'],
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

    it('grants the apiserver only the creation of organization namespaces while no kind is installed', () => {
      expect(rules(withoutKinds, 'ClusterRole', 'cloudplane-apiserver')).toEqual([NAMESPACE_CREATE]);
    });
  });

  describe('RBAC with a kind installed', () => {
    let dir: string;
    let withKind: Manifest[];
    let withoutKinds: Manifest[];

    beforeAll(() => {
      const copy = chartWithKinds([widgetKind]);
      dir = copy.dir;
      withKind = render([...REQUIRED, '--include-crds'], copy.chartDir);
      const empty = chartWithKinds([]);
      withoutKinds = render(REQUIRED, empty.chartDir);
      fs.rmSync(empty.dir, { recursive: true, force: true });
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
      expect(operator.slice(1)).toEqual(rules(withoutKinds, 'ClusterRole', 'cloudplane-operator'));
    });

    it('lets the apiserver manage the kind by name, never its status', () => {
      const apiserver = rules(withKind, 'ClusterRole', 'cloudplane-apiserver');
      expect(apiserver).toEqual([
        NAMESPACE_CREATE,
        {
          apiGroups: ['cloudplane.dev'],
          resources: ['widgets'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
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
