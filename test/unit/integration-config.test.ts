import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/env.js';
import { loadConfig } from '../../config/index.js';

describe('config.integrations', () => {
  it('defaults to the public provider endpoints and public egress only', () => {
    expect(loadConfig({}).integrations).toEqual({
      allowPrivateEgress: false,
      codehostUrl: 'https://api.github.com',
      edgenetUrl: 'https://api.cloudflare.com/client/v4',
      monitorUrls: {
        'datadoghq.com': 'https://api.datadoghq.com',
        'datadoghq.eu': 'https://api.datadoghq.eu',
      },
      pagerUrl: 'https://events.pagerduty.com',
      codehostApp: undefined,
      eventMaxAttempts: 8,
    });
  });

  it('reads every setting', () => {
    const config = loadConfig({
      CLOUDPLANE_EGRESS_ALLOW_PRIVATE: 'true',
      CLOUDPLANE_PROVIDER_CODEHOST_URL: 'https://ghe.example.com/api/v3',
      CLOUDPLANE_PROVIDER_MONITOR_URLS: 'datadoghq.eu=http://127.0.0.1:9000',
      CLOUDPLANE_PROVIDER_CODEHOST_APP_ID: '123',
      CLOUDPLANE_PROVIDER_CODEHOST_APP_PRIVATE_KEY:
        '-----BEGIN PRIVATE KEY-----\\nabc\\n-----END PRIVATE KEY-----',
      CLOUDPLANE_EVENT_MAX_ATTEMPTS: '3',
    }).integrations;
    expect(config).toMatchObject({
      allowPrivateEgress: true,
      codehostUrl: 'https://ghe.example.com/api/v3',
      monitorUrls: { 'datadoghq.com': 'https://api.datadoghq.com', 'datadoghq.eu': 'http://127.0.0.1:9000' },
      codehostApp: {
        appId: '123',
        privateKey: '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----',
      },
      eventMaxAttempts: 3,
    });
  });

  it.each([
    ['CLOUDPLANE_EGRESS_ALLOW_PRIVATE', { CLOUDPLANE_EGRESS_ALLOW_PRIVATE: 'maybe' }],
    ['CLOUDPLANE_PROVIDER_PAGER_URL', { CLOUDPLANE_PROVIDER_PAGER_URL: 'http://pager.example.com' }],
    [
      'CLOUDPLANE_PROVIDER_MONITOR_URLS',
      { CLOUDPLANE_PROVIDER_MONITOR_URLS: 'example.com=https://x.example' },
    ],
    ['CLOUDPLANE_PROVIDER_CODEHOST_APP_ID', { CLOUDPLANE_PROVIDER_CODEHOST_APP_ID: 'abc' }],
    ['CLOUDPLANE_PROVIDER_CODEHOST_APP_PRIVATE_KEY', { CLOUDPLANE_PROVIDER_CODEHOST_APP_ID: '1' }],
    [
      'CLOUDPLANE_PROVIDER_CODEHOST_APP_PRIVATE_KEY',
      { CLOUDPLANE_PROVIDER_CODEHOST_APP_ID: '1', CLOUDPLANE_PROVIDER_CODEHOST_APP_PRIVATE_KEY: 'secret' },
    ],
    ['CLOUDPLANE_EVENT_MAX_ATTEMPTS', { CLOUDPLANE_EVENT_MAX_ATTEMPTS: '0' }],
  ])('refuses a bad %s, naming it', (variable, env) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(variable);
  });

  it('never repeats a rejected private key', () => {
    expect(() =>
      loadConfig({
        CLOUDPLANE_PROVIDER_CODEHOST_APP_ID: '1',
        CLOUDPLANE_PROVIDER_CODEHOST_APP_PRIVATE_KEY: 'secret',
      }),
    ).not.toThrow(/secret"/);
  });
});
