import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/env.js';
import { loadConfig } from '../../config/index.js';

describe('loadConfig', () => {
  it.each([
    ['', false],
    ['false', false],
    ['true', true],
    ['2', 2],
    ['10.0.0.0/8, 192.168.1.1', ['10.0.0.0/8', '192.168.1.1']],
    ['fd00::/8', ['fd00::/8']],
  ])('reads CLOUDPLANE_TRUST_PROXY=%j', (value, expected) => {
    expect(loadConfig({ CLOUDPLANE_TRUST_PROXY: value }).http.trustProxy).toEqual(expected);
  });

  it('takes an image for any name the environment gives, by lower-case name', () => {
    expect(loadConfig({}).workloads.kubernetes.images).toEqual({});
    const env = {
      CLOUDPLANE_KUBE_IMAGE_MYSQL: ' mysql:8.0 ',
      CLOUDPLANE_KUBE_IMAGE_TOOLS: 'registry.example/busybox:1.37',
      CLOUDPLANE_KUBE_IMAGE_COCKROACH: 'cockroachdb/cockroach:v24.1',
      CLOUDPLANE_KUBE_IMAGE_REDIS: '  ',
    };
    expect(loadConfig(env).workloads.kubernetes.images).toEqual({
      mysql: 'mysql:8.0',
      tools: 'registry.example/busybox:1.37',
      cockroach: 'cockroachdb/cockroach:v24.1',
    });
  });

  it('has working defaults for the embedded mode', () => {
    const config = loadConfig({});
    expect(config.http).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      bodyLimitBytes: 1024 * 1024,
      rateLimit: { perMinute: 1000, perSecond: 100 },
    });
    expect(config.http.publicUrl.href).toBe('http://127.0.0.1:8080');
    expect(config.process).toMatchObject({
      dataDir: path.resolve('.cloudplane'),
      databaseUrl: undefined,
      logLevel: 'info',
    });
    expect(config.jobs).toMatchObject({ garbageCollection: { dryRun: true, retentionDays: 30 } });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '9090',
      CLOUDPLANE_HOST: '0.0.0.0',
      CLOUDPLANE_DATA_DIR: '/var/lib/cloudplane',
      CLOUDPLANE_BASE_URL: 'https://cloud.example.com/',
      DATABASE_URL: 'postgres://u@db:5432/cp',
      KUBECONFIG: '/etc/kube/config',
      CLOUDPLANE_LOG_LEVEL: 'DEBUG',
      CLOUDPLANE_BODY_LIMIT: '256kb',
      CLOUDPLANE_RATE_LIMIT_PER_MINUTE: '50',
      CLOUDPLANE_RATE_LIMIT_PER_SECOND: '5',
      CLOUDPLANE_GC_DRY_RUN: 'false',
      CLOUDPLANE_GC_RETENTION_DAYS: '60',
    });
    expect(config.http).toMatchObject({
      port: 9090,
      host: '0.0.0.0',
      bodyLimitBytes: 256 * 1024,
      rateLimit: { perMinute: 50, perSecond: 5 },
    });
    expect(config.http.publicUrl.href).toBe('https://cloud.example.com');
    expect(config.process).toMatchObject({
      dataDir: '/var/lib/cloudplane',
      databaseUrl: 'postgres://u@db:5432/cp',
      kubeconfig: '/etc/kube/config',
      logLevel: 'debug',
    });
    expect(config.jobs).toMatchObject({ garbageCollection: { dryRun: false, retentionDays: 60 } });
  });

  it.each([
    ['PORT', 'eighty', 'PORT: expected an integer from 0 to 65535, got "eighty"'],
    ['PORT', '70000', 'PORT: expected an integer from 0 to 65535, got "70000"'],
    [
      'CLOUDPLANE_BASE_URL',
      'not a url',
      'CLOUDPLANE_BASE_URL: expected a URL (http or https), got "not a url"',
    ],
    [
      'DATABASE_URL',
      'mysql://db/cp',
      'DATABASE_URL: expected a URL (postgres or postgresql), got "mysql://db/cp"',
    ],
    [
      'CLOUDPLANE_LOG_LEVEL',
      'loud',
      'CLOUDPLANE_LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    ],
    ['CLOUDPLANE_GC_DRY_RUN', 'maybe', 'CLOUDPLANE_GC_DRY_RUN: expected true or false, got "maybe"'],
    [
      'CLOUDPLANE_BODY_LIMIT',
      '1tb',
      'CLOUDPLANE_BODY_LIMIT: expected a size from 1kb to 64mb (for example 1mb or 262144), got "1tb"',
    ],
    [
      'CLOUDPLANE_RATE_LIMIT_PER_MINUTE',
      '0',
      'CLOUDPLANE_RATE_LIMIT_PER_MINUTE: expected an integer from 1 to 10000000, got "0"',
    ],
    [
      'CLOUDPLANE_TRUST_PROXY',
      'the ingress',
      'CLOUDPLANE_TRUST_PROXY: expected false, true, a hop count, or comma-separated addresses and CIDRs, got "the ingress"',
    ],
  ])('rejects %s=%s naming the variable and what it expects', (variable, value, message) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(message);
  });
});

describe('loadConfig: accounts, mail and keys', () => {
  it('defaults to 15-minute access tokens, 30-day refresh tokens and a 5-in-15-minutes lock-out', () => {
    const config = loadConfig({});
    expect(config.platformKey.kmsKey).toBeUndefined();
    expect(config.http.metricsToken).toBeUndefined();
    expect(config).toMatchObject({
      accounts: {
        accessTokenTtlSeconds: 900,
        refreshTokenTtlSeconds: 2_592_000,
        loginMaxFailures: 5,
        loginMaxFailuresPerAddress: 50,
        loginLockoutSeconds: 900,
      },
      mail: { smtpUrl: undefined, from: 'cloudplane <no-reply@localhost>' },
    });
  });

  it('reads every variable', () => {
    const key = Buffer.alloc(32, 7);
    const config = loadConfig({
      CLOUDPLANE_KMS_KEY: key.toString('base64'),
      CLOUDPLANE_METRICS_TOKEN: 'scrape-me-0123456789',
      CLOUDPLANE_ACCESS_TOKEN_TTL: '300',
      CLOUDPLANE_REFRESH_TOKEN_TTL: '86400',
      CLOUDPLANE_LOGIN_MAX_FAILURES: '3',
      CLOUDPLANE_LOGIN_MAX_FAILURES_PER_ADDRESS: '20',
      CLOUDPLANE_LOGIN_LOCKOUT_SECONDS: '600',
      CLOUDPLANE_SMTP_URL: 'smtps://mailer:pw@smtp.example.com:465',
      CLOUDPLANE_MAIL_FROM: 'Cloud <ops@example.com>',
    });
    expect(config.platformKey.kmsKey?.equals(key)).toBe(true);
    expect(config.http.metricsToken).toBe('scrape-me-0123456789');
    expect(config).toMatchObject({
      accounts: {
        accessTokenTtlSeconds: 300,
        refreshTokenTtlSeconds: 86_400,
        loginMaxFailures: 3,
        loginMaxFailuresPerAddress: 20,
        loginLockoutSeconds: 600,
      },
      mail: { smtpUrl: 'smtps://mailer:pw@smtp.example.com:465', from: 'Cloud <ops@example.com>' },
    });
  });

  it('accepts a base64url platform key', () => {
    const key = Buffer.alloc(32, 0xfb);
    expect(
      loadConfig({ CLOUDPLANE_KMS_KEY: key.toString('base64url') }).platformKey.kmsKey?.equals(key),
    ).toBe(true);
  });

  it.each([
    [
      'CLOUDPLANE_KMS_KEY',
      Buffer.alloc(16, 1).toString('base64'),
      'CLOUDPLANE_KMS_KEY: expected 32 bytes in base64 (for example from: openssl rand -base64 32), got "(not shown) 16 bytes"',
    ],
    [
      'CLOUDPLANE_KMS_KEY',
      'not base64!',
      'CLOUDPLANE_KMS_KEY: expected 32 bytes in base64 (for example from: openssl rand -base64 32), got "(not shown) not base64"',
    ],
    [
      'CLOUDPLANE_METRICS_TOKEN',
      'short',
      'CLOUDPLANE_METRICS_TOKEN: expected at least 16 printable characters without spaces, got "(not shown)"',
    ],
    [
      'CLOUDPLANE_SMTP_URL',
      'http://mailer:hunter2@smtp.example.com',
      'CLOUDPLANE_SMTP_URL: expected a URL (smtp or smtps), got "http://mailer:****@smtp.example.com/"',
    ],
    [
      'CLOUDPLANE_MAIL_FROM',
      'nobody',
      'CLOUDPLANE_MAIL_FROM: expected an address such as "cloudplane <no-reply@example.com>", got "nobody"',
    ],
    [
      'CLOUDPLANE_ACCESS_TOKEN_TTL',
      '10',
      'CLOUDPLANE_ACCESS_TOKEN_TTL: expected an integer from 60 to 86400, got "10"',
    ],
    [
      'CLOUDPLANE_LOGIN_MAX_FAILURES',
      '0',
      'CLOUDPLANE_LOGIN_MAX_FAILURES: expected an integer from 1 to 1000, got "0"',
    ],
  ])('rejects %s=%s naming the variable, without echoing secrets', (variable, value, message) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(message);
  });
});

describe('loadConfig: the backup bucket', () => {
  const bucketEnv = {
    CLOUDPLANE_BACKUP_S3_URL: 'https://s3.eu-central-1.amazonaws.com/',
    CLOUDPLANE_BACKUP_S3_BUCKET: 'acme-backups',
    CLOUDPLANE_BACKUP_S3_ACCESS_KEY_ID: 'AKIAEXAMPLEKEYID0001',
    CLOUDPLANE_BACKUP_S3_SECRET_ACCESS_KEY: 'secret/Key+0123456789abcdefghijklmnopqrs',
  };

  it('keeps backups as local files when no bucket is configured', () => {
    expect(loadConfig({}).workloads.backupBucket).toBeUndefined();
  });

  it('reads a bucket with the default region and prefix', () => {
    expect(loadConfig(bucketEnv).workloads.backupBucket).toEqual({
      endpoint: 'https://s3.eu-central-1.amazonaws.com',
      bucket: 'acme-backups',
      region: 'us-east-1',
      accessKeyId: 'AKIAEXAMPLEKEYID0001',
      secretAccessKey: 'secret/Key+0123456789abcdefghijklmnopqrs',
      prefix: 'cloudplane-backups/',
    });
  });

  it('reads every variable, and plain http for a loopback endpoint', () => {
    const config = loadConfig({
      ...bucketEnv,
      CLOUDPLANE_BACKUP_S3_URL: 'http://127.0.0.1:9000/storage/',
      CLOUDPLANE_BACKUP_S3_REGION: 'eu-west-3',
      CLOUDPLANE_BACKUP_S3_PREFIX: 'platform/backups/',
    });
    expect(config.workloads.backupBucket).toMatchObject({
      endpoint: 'http://127.0.0.1:9000/storage',
      region: 'eu-west-3',
      prefix: 'platform/backups/',
    });
  });

  it.each([
    [
      { CLOUDPLANE_BACKUP_S3_BUCKET: '' },
      'CLOUDPLANE_BACKUP_S3_BUCKET: expected a value when CLOUDPLANE_BACKUP_S3_URL is set, got ""',
    ],
    [
      { CLOUDPLANE_BACKUP_S3_ACCESS_KEY_ID: undefined },
      'CLOUDPLANE_BACKUP_S3_ACCESS_KEY_ID: expected a value when CLOUDPLANE_BACKUP_S3_URL is set, got ""',
    ],
    [
      { CLOUDPLANE_BACKUP_S3_SECRET_ACCESS_KEY: ' ' },
      'CLOUDPLANE_BACKUP_S3_SECRET_ACCESS_KEY: expected a value when CLOUDPLANE_BACKUP_S3_URL is set, got " "',
    ],
    [
      { CLOUDPLANE_BACKUP_S3_URL: undefined },
      'CLOUDPLANE_BACKUP_S3_URL: expected a value when CLOUDPLANE_BACKUP_S3_BUCKET is set, got ""',
    ],
    [
      { CLOUDPLANE_BACKUP_S3_URL: 'http://minio.internal:9000' },
      'CLOUDPLANE_BACKUP_S3_URL: expected an https URL (http only on a loopback host), got "http://minio.internal:9000"',
    ],
    [
      { CLOUDPLANE_BACKUP_S3_URL: 'https://user:hunter2@s3.example.com' },
      'CLOUDPLANE_BACKUP_S3_URL: expected a URL without credentials, query or fragment, got "https://s3.example.com"',
    ],
    [
      { CLOUDPLANE_BACKUP_S3_BUCKET: 'Acme_Backups' },
      'CLOUDPLANE_BACKUP_S3_BUCKET: expected an S3 bucket name (3 to 63 of a-z, 0-9, . and -), got "Acme_Backups"',
    ],
    [
      { CLOUDPLANE_BACKUP_S3_REGION: 'EU West' },
      'CLOUDPLANE_BACKUP_S3_REGION: expected a region such as us-east-1, got "EU West"',
    ],
    [
      { CLOUDPLANE_BACKUP_S3_PREFIX: '/backups/' },
      'CLOUDPLANE_BACKUP_S3_PREFIX: expected a key prefix that does not start with /, got "/backups/"',
    ],
  ])('refuses an incomplete or bad bucket (%j) naming the variable', (change, message) => {
    const env = { ...bucketEnv, ...change };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
