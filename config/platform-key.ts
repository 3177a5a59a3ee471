import path from 'node:path';
import { ConfigError, type Env } from './env.js';

/** Where the key every secret at rest is sealed under comes from. */
export interface PlatformKeyConfig {
  /** `CLOUDPLANE_KMS_KEY`, 32 bytes, when set. */
  kmsKey: Buffer | undefined;
  /** Where the embedded mode keeps a generated key when none is configured. */
  keyFile: string;
  /** Replicas share one PostgreSQL data plane: each must open what another sealed, so the key is required. */
  required: boolean;
}

export const PLATFORM_KEY_BYTES = 32;

/** The value is a secret: errors say what is wrong with it without repeating it. */
function kmsKey(env: Env): Buffer | undefined {
  const name = 'CLOUDPLANE_KMS_KEY';
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const expected = `${PLATFORM_KEY_BYTES} bytes in base64 (for example from: openssl rand -base64 32)`;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)) throw new ConfigError(name, expected, '(not shown) not base64');
  const key = Buffer.from(raw, raw.includes('-') || raw.includes('_') ? 'base64url' : 'base64');
  if (key.length !== PLATFORM_KEY_BYTES) {
    throw new ConfigError(name, expected, `(not shown) ${key.length} bytes`);
  }
  return key;
}

export function platformKeyConfig(
  env: Env,
  place: { dataDir: string; databaseUrl: string | undefined },
): PlatformKeyConfig {
  return {
    kmsKey: kmsKey(env),
    keyFile: path.join(place.dataDir, 'platform.key'),
    required: place.databaseUrl !== undefined,
  };
}
