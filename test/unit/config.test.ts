import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../cli/config.js';

describe('loadConfig', () => {
  it('has working defaults for the embedded mode', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: path.resolve('.cloudplane'),
      baseUrl: 'http://127.0.0.1:8080',
      databaseUrl: undefined,
      logLevel: 'info',
      bodyLimitBytes: 1024 * 1024,
      rateLimit: { perMinute: 1000, perSecond: 100 },
      garbageCollection: { dryRun: true, retentionDays: 30 },
    });
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
    expect(config).toMatchObject({
      port: 9090,
      host: '0.0.0.0',
      dataDir: '/var/lib/cloudplane',
      baseUrl: 'https://cloud.example.com',
      databaseUrl: 'postgres://u@db:5432/cp',
      kubeconfig: '/etc/kube/config',
      logLevel: 'debug',
      bodyLimitBytes: 256 * 1024,
      rateLimit: { perMinute: 50, perSecond: 5 },
      garbageCollection: { dryRun: false, retentionDays: 60 },
    });
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
  ])('rejects %s=%s naming the variable and what it expects', (variable, value, message) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(message);
  });
});
