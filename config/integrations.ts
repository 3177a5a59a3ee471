import { boolean, ConfigError, integer, providerUrl, requiredWith, type Env } from './env.js';

/** The monitoring sites a monitor integration may name. */
export type MonitorSite = 'datadoghq.com' | 'datadoghq.eu';

/** Third-party providers: where each one answers, and what outbound requests may reach. */
export interface IntegrationsConfig {
  /**
   * Allow outbound requests to private, loopback and link-local addresses, and plain http
   * (`CLOUDPLANE_EGRESS_ALLOW_PRIVATE`, default false: only public https).
   */
  allowPrivateEgress: boolean;
  codehostUrl: string;
  edgenetUrl: string;
  monitorUrls: Record<MonitorSite, string>;
  pagerUrl: string;
  /** The platform's codehost app, which codehost integrations are installations of. */
  codehostApp: { appId: string; privateKey: string } | undefined;
  /** Deliveries of one event before it is given up as dead. */
  eventMaxAttempts: number;
}

const MONITOR_SITES: readonly MonitorSite[] = ['datadoghq.com', 'datadoghq.eu'];

function monitorUrls(env: Env): Record<MonitorSite, string> {
  const name = 'CLOUDPLANE_PROVIDER_MONITOR_URLS';
  const urls: Record<MonitorSite, string> = {
    'datadoghq.com': 'https://api.datadoghq.com',
    'datadoghq.eu': 'https://api.datadoghq.eu',
  };
  const raw = env[name]?.trim();
  if (!raw) return urls;
  const expected = 'comma-separated <site>=<url> with sites datadoghq.com and datadoghq.eu';
  for (const entry of raw.split(',').map((item) => item.trim())) {
    const separator = entry.indexOf('=');
    const site = entry.slice(0, separator) as MonitorSite;
    if (separator < 0 || !MONITOR_SITES.includes(site)) throw new ConfigError(name, expected, entry);
    urls[site] = providerUrl({ [name]: entry.slice(separator + 1) }, name, '');
  }
  return urls;
}

function codehostApp(env: Env): IntegrationsConfig['codehostApp'] {
  const idName = 'CLOUDPLANE_PROVIDER_CODEHOST_APP_ID';
  const appId = env[idName]?.trim();
  if (!appId) return undefined;
  if (!/^\d+$/.test(appId)) throw new ConfigError(idName, 'a numeric app id', appId);
  const keyName = 'CLOUDPLANE_PROVIDER_CODEHOST_APP_PRIVATE_KEY';
  const privateKey = requiredWith(env, keyName, idName).replace(/\\n/g, '\n');
  if (!privateKey.includes('PRIVATE KEY-----')) {
    throw new ConfigError(keyName, 'a PEM private key', '(not shown) not PEM');
  }
  return { appId, privateKey };
}

export function integrationsConfig(env: Env): IntegrationsConfig {
  return {
    allowPrivateEgress: boolean(env, 'CLOUDPLANE_EGRESS_ALLOW_PRIVATE', false),
    codehostUrl: providerUrl(env, 'CLOUDPLANE_PROVIDER_CODEHOST_URL', 'https://api.github.com'),
    edgenetUrl: providerUrl(env, 'CLOUDPLANE_PROVIDER_EDGENET_URL', 'https://api.cloudflare.com/client/v4'),
    monitorUrls: monitorUrls(env),
    pagerUrl: providerUrl(env, 'CLOUDPLANE_PROVIDER_PAGER_URL', 'https://events.pagerduty.com'),
    codehostApp: codehostApp(env),
    eventMaxAttempts: integer(env, 'CLOUDPLANE_EVENT_MAX_ATTEMPTS', 8, 1, 100),
  };
}
