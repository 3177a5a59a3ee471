/**
 * `cloudplane serve` answers its probes as soon as the data plane is open and loads the rest of
 * the platform after: a request to the API made the moment `/health` first answers waits for the
 * whole API instead of being refused or answered by half of it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../fixtures/free-port.js';

const CLI = path.resolve('dist/cli/cloudplane.js');

describe('cloudplane serve while it starts', () => {
  let dataDir: string;
  let child: ChildProcess;
  let exited: Promise<unknown>;

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cloudplane-startup-'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it('answers /health once the data plane is open, and the API in full from its first request', async () => {
    const port = await freePort();
    child = spawn(process.execPath, [CLI, 'serve'], {
      env: {
        PATH: process.env.PATH,
        CLOUDPLANE_DATA_DIR: dataDir,
        PORT: String(port),
        CLOUDPLANE_KUBE_API_PORT: '0',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    exited = new Promise((resolve) => child.once('exit', resolve));
    const base = `http://127.0.0.1:${port}`;

    let health: Response | undefined;
    const deadline = Date.now() + 20_000;
    while (!health && Date.now() < deadline) {
      expect(child.exitCode).toBeNull();
      health = await fetch(`${base}/health`).catch(() => undefined);
      if (!health) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(health?.status).toBe(200);
    expect(((await health!.json()) as { checks: unknown }).checks).toEqual({ store: 'ok', database: 'ok' });

    // Asked at once, before the platform may have finished starting.
    const [vpcs, document, unknown] = await Promise.all([
      fetch(`${base}/api/v1/vpcs`),
      fetch(`${base}/openapi.json`),
      fetch(`${base}/api/v1/no-such-area`),
    ]);
    expect(vpcs.status).toBe(401);
    expect(document.status).toBe(200);
    const paths = ((await document.json()) as { paths: Record<string, unknown> }).paths;
    expect(Object.keys(paths)).toEqual(expect.arrayContaining(['/health', '/api/v1/vpcs', '/v1/databases']));
    expect(unknown.status).toBe(404);
  }, 30_000);
});
