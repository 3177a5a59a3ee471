/**
 * Reading settings from the environment: the error every bad value raises and the readers each
 * slice is written with. A reader returns the fallback for an unset or empty variable and throws
 * `ConfigError` naming the variable and what it expects for anything else it cannot use.
 */

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    expected: string,
    got: string,
  ) {
    super(`${variable}: expected ${expected}, got ${JSON.stringify(got)}`);
    this.name = 'ConfigError';
  }
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `an integer from ${min} to ${max}`, raw);
  }
  return value;
}

export function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const normalised = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalised)) return true;
  if (['0', 'false', 'no', 'off'].includes(normalised)) return false;
  throw new ConfigError(name, 'true or false', raw);
}

export function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `a URL (${protocols.join(' or ')})`, raw);
  }
  if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
    throw new ConfigError(name, `a URL (${protocols.join(' or ')})`, raw);
  }
  return raw;
}

/** Comma-separated entries, trimmed, empty ones dropped. */
export function commaList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * A provider endpoint. Codes, secrets and tokens travel to it, so it must be https; plain http is
 * accepted only for a loopback host, where nothing crosses a network.
 */
export function providerUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name]?.trim() || fallback;
  const parsed = URL.canParse(raw) ? new URL(raw) : undefined;
  const secure =
    parsed?.protocol === 'https:' || (parsed?.protocol === 'http:' && isLoopbackHost(parsed.hostname));
  if (!secure) throw new ConfigError(name, 'an https URL (http only on a loopback host)', raw);
  return raw;
}

/** A setting a configured provider cannot do without; `because` names what made it necessary. */
export function requiredWith(env: Env, name: string, because: string): string {
  const value = env[name]?.trim();
  if (!value) throw new ConfigError(name, `a value when ${because} is set`, env[name] ?? '');
  return value;
}
