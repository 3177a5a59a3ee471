/**
 * Every `--wait` of the command line prints what the wait ended on: the resource as it is when it
 * settled (never as it was created), after the spinner's last line, as JSON that ends with a
 * newline. stdout and stderr share one file here, so their order is the order a user sees.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../observability/clock.js';
import { signIn } from '../fixtures/accounts-app.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

const BINARY = path.resolve('dist/cli/cloudplane.js');
const EMAIL = 'wait@example.com';
const PASSWORD = 'a long enough passphrase';

let platform: TestPlatform;
let configHome: string;
let token: string;

interface Run {
  code: number | null;
  /** stdout and stderr as written, interleaved in order. */
  output: string;
}

function cli(args: string[], input = ''): Promise<Run> {
  const file = path.join(configHome, `output-${process.hrtime.bigint()}`);
  const fd = fs.openSync(file, 'w');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BINARY, ...args], {
      env: { PATH: process.env.PATH, HOME: configHome, XDG_CONFIG_HOME: configHome },
      stdio: ['pipe', fd, fd],
    });
    child.on('error', reject);
    child.on('close', (code) => {
      fs.closeSync(fd);
      resolve({ code, output: fs.readFileSync(file, 'utf8') });
    });
    child.stdin!.end(input);
  });
}

/** Runs a `--wait` command with `-o json`: the JSON it printed, checked to come last and end with a newline. */
async function waited(args: string[]): Promise<Record<string, unknown>> {
  const run = await cli([...args, '--wait', '-o', 'json']);
  expect(run.code, run.output).toBe(0);
  const start = run.output.indexOf('{\n');
  expect(start, run.output).toBeGreaterThanOrEqual(0);
  const before = run.output.slice(0, start);
  const printed = run.output.slice(start);
  // The spinner's last line is done before the answer, and nothing follows the answer.
  expect(before, run.output).toMatch(/✔ [^\n]*\n$/);
  expect(printed.endsWith('}\n'), run.output).toBe(true);
  return JSON.parse(printed) as Record<string, unknown>;
}

async function api(method: string, route: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await platform.call(method, route, { token, body });
  expect(response.status, route).toBeLessThan(300);
  const answer = (await response.json()) as Record<string, unknown> & { data?: Record<string, unknown> };
  return answer.data ?? answer;
}

beforeAll(async () => {
  if (!fs.existsSync(BINARY)) throw new Error(`${BINARY} is missing: run npm run build first`);
  configHome = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-cli-wait-'));
  platform = await startPlatform({ clock: systemClock });
  const signup = await cli(
    ['signup', '--server', platform.url, '--email', EMAIL, '--name', 'Wade', '--password-stdin'],
    `${PASSWORD}\n`,
  );
  expect(signup.code, signup.output).toBe(0);
  const login = await cli(
    ['login', '--server', platform.url, '--email', EMAIL, '--password-stdin'],
    `${PASSWORD}\n`,
  );
  expect(login.code, login.output).toBe(0);
  ({ token } = await signIn(platform, EMAIL, PASSWORD));
}, 60_000);
afterAll(async () => {
  await platform?.close();
  fs.rmSync(configHome, { recursive: true, force: true });
});

describe('every --wait prints what the wait ended on', () => {
  it('vault create: the cluster running and unsealed, not as created', async () => {
    const cluster = await waited(['vault', 'create', 'app', '--auto-unseal']);
    expect(cluster).toMatchObject({ name: 'app', status: 'running', sealed: false });
    expect(await waited(['vault', 'delete', String(cluster.id)])).toEqual({ deleted: cluster.id });
  }, 60_000);

  it('vpc create: the VPC available', async () => {
    const vpc = await waited(['vpc', 'create', 'prod', '--cidr', '10.0.0.0/16', '--region', 'us-east-1']);
    expect(vpc).toMatchObject({ name: 'prod', status: 'available' });
    expect(await waited(['vpc', 'delete', String(vpc.id)])).toEqual({ deleted: vpc.id });
  }, 60_000);

  it('databases create: the database as far as this machine takes it', async () => {
    const database = await waited(['databases', 'create', 'docs', '--engine', 'mongodb']);
    expect(database).toMatchObject({ name: 'docs', status: 'recorded', realization: 'recorded' });
    expect(await waited(['databases', 'delete', String(database.id)])).toEqual({ deleted: database.id });
  }, 60_000);

  it('streaming clusters create: the cluster running', async () => {
    const cluster = await waited(['streaming', 'clusters', 'create', 'events']);
    expect(cluster).toMatchObject({ name: 'events', status: 'running' });
    expect(await waited(['streaming', 'clusters', 'delete', String(cluster.id)])).toEqual({
      deleted: cluster.id,
    });
  }, 120_000);

  it('backups create and restore: the backup and the restore completed', async () => {
    const share = await api('POST', '/v1/nfs-shares', { name: 'files', size_gb: 1 });
    await eventually(async () => {
      expect((await api('GET', `/v1/nfs-shares/${String(share.id)}`)).status).toBe('available');
    }, 30_000);
    const backup = await waited(['backups', 'create', String(share.id)]);
    expect(backup).toMatchObject({ resource_id: share.id, status: 'completed' });
    const restore = await waited(['backups', 'restore', String(backup.id)]);
    expect(restore).toMatchObject({ status: 'completed' });
  }, 120_000);
});
