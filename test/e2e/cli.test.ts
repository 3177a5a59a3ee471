/**
 * The `cloudplane` client as users run it: the built binary as a subprocess, against a platform
 * started here on the system clock, its config under a temp XDG_CONFIG_HOME. One account goes
 * from sign-up through VPCs, vault secrets, a database, a stack and usage, then the errors and a
 * session refreshed after its access token expired.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../observability/clock.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

const BINARY = path.resolve('dist/cli/cloudplane.js');
const PASSWORD = 'a long enough passphrase';
/** The shortest access token the platform issues. */
const ACCESS_TOKEN_TTL_SECONDS = 60;
/**
 * The platform runs on the system clock put forward by this much: the last tests move it past an
 * access token's lifetime instead of waiting a minute for one to expire.
 */
let platformAheadMs = 0;
const platformClock: Clock = { ...systemClock, now: () => new Date(Date.now() + platformAheadMs) };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('the cloudplane command line, against a running platform', () => {
  let platform: TestPlatform;
  let configHome: string;

  function cli(args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<Run> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [BINARY, ...args], {
        env: { PATH: process.env.PATH, HOME: configHome, XDG_CONFIG_HOME: configHome, ...options.env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(options.input ?? '');
    });
  }
  async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
    const run = await cli([...args, '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as T;
  }
  const configFile = () => path.join(configHome, 'cloudplane', 'config.json');
  const storedSession = () => {
    const config = JSON.parse(fs.readFileSync(configFile(), 'utf8')) as {
      contexts: Record<string, { credentials: { refresh_token: string; expires_at: string } }>;
    };
    return Object.values(config.contexts)[0]!.credentials;
  };

  beforeAll(async () => {
    if (!fs.existsSync(BINARY)) throw new Error(`${BINARY} is missing: run npm run build first`);
    configHome = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-cli-'));
    platform = await startPlatform({
      clock: platformClock,
      env: { CLOUDPLANE_ACCESS_TOKEN_TTL: String(ACCESS_TOKEN_TTL_SECONDS) },
    });
  });
  afterAll(async () => {
    await platform?.close();
    fs.rmSync(configHome, { recursive: true, force: true });
  });

  it('signs up and logs in; the config file is 0600 in a 0700 directory', async () => {
    const signup = await cli(
      ['signup', '--server', platform.url, '--email', 'ada@example.com', '--name', 'Ada', '--password-stdin'],
      { input: `${PASSWORD}\n` },
    );
    expect(signup.code, signup.stderr).toBe(0);

    const login = await cli(
      [
        'login',
        '--server',
        platform.url,
        '--email',
        'ada@example.com',
        '--password-stdin',
        '--context',
        'local',
      ],
      {
        input: `${PASSWORD}\n`,
      },
    );
    expect(login.code, login.stderr).toBe(0);
    expect(fs.statSync(configFile()).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(configFile())).mode & 0o777).toBe(0o700);
    expect(login.stdout + login.stderr).not.toContain(storedSession().refresh_token);

    const me = await json(['whoami']);
    expect(me.email).toBe('ada@example.com');
    const contexts = await json<{ name: string; current: boolean }[]>(['context', 'list']);
    expect(contexts).toEqual([expect.objectContaining({ name: 'local', current: true })]);
  });

  it('creates a VPC with --wait and lists it as a table and as JSON', async () => {
    const vpc = await json([
      'vpc',
      'create',
      'prod',
      '--cidr',
      '10.0.0.0/16',
      '--region',
      'eu-west-1',
      '--wait',
    ]);
    expect(vpc.status).toBe('available');

    const table = await cli(['vpc', 'list', '-o', 'table']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+CIDR\s+REGION\s+STATUS/);
    expect(table.stdout).toMatch(
      new RegExp(`${String(vpc.id)}\\s+prod\\s+10\\.0\\.0\\.0/16\\s+eu-west-1\\s+available`),
    );
    // Piped, the default is JSON.
    const piped = await cli(['vpc', 'list']);
    expect(JSON.parse(piped.stdout)).toEqual([expect.objectContaining({ id: vpc.id, name: 'prod' })]);
  });

  it('round-trips a secret through a vault cluster', async () => {
    const vault = await json(['vault', 'create', 'app', '--auto-unseal', '--wait']);
    const id = String(vault.id);
    expect((await cli(['vault', 'kv', 'put', id, 'app/config', 'user=app', 'password=s3cr=t'])).code).toBe(0);
    const field = await cli(['vault', 'kv', 'get', id, 'app/config', '--field', 'password']);
    expect(field.stdout).toBe('s3cr=t\n');
    const secret = await json<{ data: Record<string, string> }>(['vault', 'kv', 'get', id, 'app/config']);
    expect(secret.data).toEqual({ user: 'app', password: 's3cr=t' });
  });

  it('lists the engines and versions a database may ask for', async () => {
    const table = await cli(['databases', 'versions', '-o', 'table']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^ENGINE\s+RUNS\s+VERSIONS\s+DEFAULT\s+ALSO NAMED\n/);
    expect(table.stdout).toMatch(/^postgresql\s+PostgreSQL\s+14, 15, 16, 17\s+15\n/m);
    expect(table.stdout).toMatch(/^mysql\s+MariaDB\s+10\.11\s+10\.11\s+mariadb\n/m);
    const offers = await json<{ engine: string; versions: string[] }[]>(['databases', 'versions']);
    expect(offers.map((offer) => offer.engine)).toEqual(['postgresql', 'mysql', 'redis', 'mongodb']);
  });

  it('creates a PostgreSQL database with --wait and prints its connection string', async () => {
    const database = await json([
      'databases',
      'create',
      'orders',
      '--engine',
      'postgresql',
      '--storage-gb',
      '1',
      '--wait',
    ]);
    expect(database.status).toBe('available');
    const credentials = await cli(['databases', 'credentials', String(database.id), '-o', 'table']);
    expect(credentials.code, credentials.stderr).toBe(0);
    expect(credentials.stdout).toMatch(/^postgresql:\/\/\S+@127\.0\.0\.1:\d+\/\S+\n$/);
  }, 120_000);

  it('creates a stack from a YAML file, plans it as a diff and applies it phase by phase', async () => {
    const template = path.join(configHome, 'stack.yaml');
    fs.writeFileSync(
      template,
      [
        'version: "1"',
        'name: greeter',
        'secrets:',
        '  api_token: { type: generated, generator_type: token, length: 32 }',
        'outputs:',
        '  greeting: { value: hello }',
        '  token: { value: "${secrets.api_token}" }',
        '',
      ].join('\n'),
    );
    const stack = await json(['stacks', 'create', 'greeter', '-f', template, '--tenant', 'acme']);
    const id = String(stack.id);

    const plan = await cli(['stacks', 'plan', id, '-o', 'table']);
    expect(plan.stdout).toContain('+ secrets.api_token (create)');
    expect(plan.stdout).toContain('    generator_type: "token"');
    expect(plan.stdout).toContain('    value: (sensitive)');
    expect(plan.stdout).toContain('Plan: 3 to create, 0 to update, 0 to replace, 0 to delete, 0 unchanged.');
    const { plan_digest } = await json<{ plan_digest: string }>(['stacks', 'plan', id]);

    const apply = await cli(['stacks', 'apply', id, '--plan-digest', plan_digest, '-o', 'table']);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stderr.split('\n').filter(Boolean)).toEqual([
      '✔ infrastructure',
      '✔ secrets',
      '✔ bootstrap',
      '✔ services',
    ]);
    expect(apply.stdout).toContain(`Applied stack ${id}`);

    const outputs = await json<{ outputs: Record<string, { value: string; sensitive?: boolean }> }>([
      'stacks',
      'outputs',
      id,
    ]);
    expect(outputs.outputs.greeting?.value).toBe('hello');
    expect(outputs.outputs.token?.sensitive).toBe(true);
    const stale = await cli(['stacks', 'apply', id, '--plan-digest', 'sha256:0']);
    expect(stale.code).toBe(1);
  }, 60_000);

  it('shows usage', async () => {
    const usage = await json<{ period: { start: string }; meters: unknown[] }>(['usage']);
    expect(usage.period.start).toMatch(/^\d{4}-\d{2}-01T/);
    expect(Array.isArray(usage.meters)).toBe(true);
  });

  it.each([
    {
      args: ['vpc', 'get', '00000000-0000-4000-8000-000000000000'],
      code: 1,
      stderr: /^error: VPC \S+ not found \(request id [0-9a-f-]{36}\)\n$/,
    },
    {
      args: ['databases', 'get', 'db_missing'],
      code: 1,
      stderr: /^error: database db_missing not found \(request id [0-9a-f-]{36}\)\n$/,
    },
    { args: ['vpc', 'list', '--bogus'], code: 2, stderr: /unknown option '--bogus'/ },
    { args: ['vpc', 'create', 'x'], code: 2, stderr: /required option '--cidr <block>' not specified/ },
    { args: ['vpc', 'get'], code: 2, stderr: /missing required argument 'id'/ },
    { args: ['nonsense'], code: 2, stderr: /unknown command 'nonsense'/ },
    { args: ['vpc', 'list', '-o', 'xml'], code: 2, stderr: /Allowed choices are table, json, yaml/ },
  ])('exits $code for cloudplane $args', async ({ args, code, stderr }) => {
    const run = await cli(args);
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(stderr);
  });

  it('CLOUDPLANE_URL and CLOUDPLANE_API_KEY win over the config file', async () => {
    const created = await json<{ key: string }>(['api-keys', 'create', 'ci', '--scope', 'vpc:read']);
    const run = await cli(['vpc', 'list', '-o', 'json'], {
      env: {
        CLOUDPLANE_URL: platform.url,
        CLOUDPLANE_API_KEY: created.key,
        XDG_CONFIG_HOME: path.join(configHome, 'none'),
      },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual([expect.objectContaining({ name: 'prod' })]);
  });

  it('refreshes an access token the platform has expired, on its 401, and keeps the rotated refresh token', async () => {
    const before = storedSession();
    // Expired by the platform's clock only: the command still thinks the token valid.
    platformAheadMs = Date.parse(before.expires_at) + 1000 - Date.now();
    const refused = await fetch(`${platform.url}/v1/auth/me`, {
      headers: { authorization: `Bearer ${(storedSession() as unknown as { token: string }).token}` },
    });
    expect(refused.status).toBe(401);

    const me = await json(['whoami']);
    expect(me.email).toBe('ada@example.com');
    const after = storedSession();
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(Date.parse(after.expires_at)).toBeGreaterThan(Date.now() + platformAheadMs);
    expect(fs.statSync(configFile()).mode & 0o777).toBe(0o600);
  });

  it('refreshes before asking when the stored access token has expired by its own clock', async () => {
    const before = storedSession();
    const config = JSON.parse(fs.readFileSync(configFile(), 'utf8')) as {
      contexts: Record<string, { credentials: { expires_at: string } }>;
    };
    Object.values(config.contexts)[0]!.credentials.expires_at = new Date(Date.now() - 1000).toISOString();
    fs.writeFileSync(configFile(), JSON.stringify(config));

    const me = await json(['whoami']);
    expect(me.email).toBe('ada@example.com');
    const after = storedSession();
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(Date.parse(after.expires_at)).toBeGreaterThan(Date.now());
  });
});
