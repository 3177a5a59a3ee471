import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../config/env.js';
import { PLATFORM_KEY_BYTES, type PlatformKeyConfig } from '../config/platform-key.js';

async function readKeyFile(file: string): Promise<Buffer> {
  const key = Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'base64');
  if (key.length !== PLATFORM_KEY_BYTES) {
    throw new Error(`${file} does not hold a ${PLATFORM_KEY_BYTES}-byte base64 key`);
  }
  // Nobody but the platform may read the key; a copy restored with loose permissions is tightened.
  await fs.chmod(file, 0o600);
  return key;
}

/**
 * The key every secret at rest is sealed under. `CLOUDPLANE_KMS_KEY` when set. Otherwise, in the
 * embedded mode, a key generated on first start and kept in `<data dir>/platform.key` (mode 0600);
 * with `DATABASE_URL` (replicas sharing one database) the variable is required, since every
 * replica must open what another sealed.
 */
export async function loadPlatformKey(config: PlatformKeyConfig): Promise<Buffer> {
  if (config.kmsKey) return config.kmsKey;
  if (config.required) {
    throw new ConfigError(
      'CLOUDPLANE_KMS_KEY',
      `${PLATFORM_KEY_BYTES} bytes in base64 when DATABASE_URL is set (every replica needs the same key)`,
      '',
    );
  }
  const file = config.keyFile;
  try {
    return await readKeyFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    // `wx`: when two processes start together, one creates the key and the other reads it.
    await fs.writeFile(file, `${randomBytes(PLATFORM_KEY_BYTES).toString('base64')}\n`, {
      flag: 'wx',
      mode: 0o600,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readKeyFile(file);
}
