import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/env.js';
import { metricsScrapeAllowed } from '../../security/metrics-token.js';
import { platformKeyConfig } from '../../config/platform-key.js';
import { loadPlatformKey } from '../../security/platform-key.js';

const platformKeyPath = (dataDir: string) => path.join(dataDir, 'platform.key');

/** The slice `loadConfig` would give, with a key configured or not. */
function keySlice(place: { kmsKey: Buffer | undefined; dataDir: string; databaseUrl: string | undefined }) {
  return { ...platformKeyConfig({}, place), kmsKey: place.kmsKey };
}

let dataDir: string;

beforeEach(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-key-'));
});
afterEach(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('loadPlatformKey', () => {
  it('uses CLOUDPLANE_KMS_KEY when set, and writes no file', async () => {
    const kmsKey = randomBytes(32);
    expect(
      (await loadPlatformKey(keySlice({ kmsKey, dataDir, databaseUrl: undefined }))).equals(kmsKey),
    ).toBe(true);
    expect(fs.existsSync(platformKeyPath(dataDir))).toBe(false);
  });

  it('generates a key once in the embedded mode, kept with mode 0600, and reads it back', async () => {
    const nested = path.join(dataDir, 'fresh');
    const first = await loadPlatformKey(
      keySlice({ kmsKey: undefined, dataDir: nested, databaseUrl: undefined }),
    );
    expect(first).toHaveLength(32);
    expect(fs.statSync(platformKeyPath(nested)).mode & 0o777).toBe(0o600);
    const again = await loadPlatformKey(
      keySlice({ kmsKey: undefined, dataDir: nested, databaseUrl: undefined }),
    );
    expect(again.equals(first)).toBe(true);
  });

  it('gives processes starting together the same key', async () => {
    const keys = await Promise.all(
      Array.from({ length: 5 }, () =>
        loadPlatformKey(keySlice({ kmsKey: undefined, dataDir, databaseUrl: undefined })),
      ),
    );
    for (const key of keys) expect(key.equals(keys[0]!)).toBe(true);
  });

  it('tightens the permissions of a key file restored with loose ones', async () => {
    fs.writeFileSync(platformKeyPath(dataDir), randomBytes(32).toString('base64'), { mode: 0o644 });
    await loadPlatformKey(keySlice({ kmsKey: undefined, dataDir, databaseUrl: undefined }));
    expect(fs.statSync(platformKeyPath(dataDir)).mode & 0o777).toBe(0o600);
  });

  it('refuses a key file that does not hold 32 bytes', async () => {
    fs.writeFileSync(platformKeyPath(dataDir), 'c2hvcnQ=', { mode: 0o600 });
    await expect(
      loadPlatformKey(keySlice({ kmsKey: undefined, dataDir, databaseUrl: undefined })),
    ).rejects.toThrow('does not hold a 32-byte base64 key');
  });

  it('requires CLOUDPLANE_KMS_KEY with DATABASE_URL, where replicas must share the key', async () => {
    const load = loadPlatformKey(keySlice({ kmsKey: undefined, dataDir, databaseUrl: 'postgres://db/cp' }));
    await expect(load).rejects.toThrow(ConfigError);
    await expect(load).rejects.toThrow(
      /^CLOUDPLANE_KMS_KEY: expected 32 bytes in base64 when DATABASE_URL is set/,
    );
  });
});

describe('metricsScrapeAllowed', () => {
  const token = 'scrape-token-0123456789';
  it.each([
    [undefined, undefined, true],
    [undefined, 'Bearer anything', true],
    [token, `Bearer ${token}`, true],
    [token, `bearer ${token}`, true],
    [token, undefined, false],
    [token, 'Bearer wrong-token-0123456789', false],
    [token, `Basic ${token}`, false],
    [token, `Bearer ${token}x`, false],
  ])('with token %s and Authorization %s answers %s', (expected, authorization, allowed) => {
    expect(metricsScrapeAllowed(expected, authorization)).toBe(allowed);
  });
});
