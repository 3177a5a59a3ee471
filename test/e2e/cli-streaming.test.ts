/**
 * `cloudplane streaming …` as users run it: the built binary against a platform with real brokers
 * (the local workload runtime). One account creates a cluster, a topic and a user, prints a
 * librdkafka configuration, produces and consumes in a group with a Kafka client configured from
 * that file alone, reads the group's lag, and deletes what it made.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../observability/clock.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

const BINARY = path.resolve('dist/cli/cloudplane.js');
const PASSWORD = 'a long enough passphrase';
const RECORDS = Array.from({ length: 10 }, (_, index) => `order-${index}`);
const KCAT_PRESENT = spawnSync('kcat', ['-V']).status === 0;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `key=value` lines of a properties file. */
function parseProperties(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/** A kafkajs client configured from librdkafka properties, as a user would translate them. */
function kafkaFromProperties(properties: Record<string, string>): Kafka {
  expect(properties['security.protocol']).toBe('SASL_SSL');
  expect(properties['sasl.mechanisms']).toBe('SCRAM-SHA-512');
  return new Kafka({
    clientId: 'cli-streaming-test',
    brokers: properties['bootstrap.servers']!.split(','),
    ssl: { ca: [fs.readFileSync(properties['ssl.ca.location']!, 'utf8')] },
    sasl: {
      mechanism: 'scram-sha-512',
      username: properties['sasl.username']!,
      password: properties['sasl.password']!,
    },
    logLevel: logLevel.NOTHING,
    retry: { retries: 5 },
  });
}

describe('cloudplane streaming, against a running platform', () => {
  let platform: TestPlatform;
  let configHome: string;
  let clusterId: string;
  let password: string;
  let caFile: string;
  let printedProperties: string;
  let properties: Record<string, string>;

  /** Runs a program without blocking: the brokers answering it live in this process. */
  function run(
    program: string,
    args: string[],
    options: { input?: string; env?: Record<string, string> } = {},
  ): Promise<Run> {
    return new Promise((resolve, reject) => {
      const child = spawn(program, args, {
        cwd: configHome,
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
  const cli = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) =>
    run(process.execPath, [BINARY, ...args], options);
  async function table(args: string[]): Promise<string> {
    const run = await cli([...args, '-o', 'table']);
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  }
  async function json<T = Record<string, unknown>>(args: string[]): Promise<T> {
    const run = await cli([...args, '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as T;
  }

  beforeAll(async () => {
    if (!fs.existsSync(BINARY)) throw new Error(`${BINARY} is missing: run npm run build first`);
    configHome = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-cli-streaming-'));
    platform = await startPlatform({
      clock: systemClock,
      env: { CLOUDPLANE_STREAMING_PORTS: '29460-29499', CLOUDPLANE_STREAMING_REFRESH_MS: '300' },
    });
    const signup = await cli(
      ['signup', '--server', platform.url, '--email', 'eve@example.com', '--name', 'Eve', '--password-stdin'],
      { input: `${PASSWORD}\n` },
    );
    expect(signup.code, signup.stderr).toBe(0);
    const login = await cli(
      ['login', '--server', platform.url, '--email', 'eve@example.com', '--password-stdin'],
      { input: `${PASSWORD}\n` },
    );
    expect(login.code, login.stderr).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    fs.rmSync(configHome, { recursive: true, force: true });
  }, 60_000);

  it('creates a starter cluster with --wait and lists it', async () => {
    const cluster = await json(['streaming', 'clusters', 'create', 'demo', '--wait']);
    expect(cluster).toMatchObject({ name: 'demo', tier: 'starter', region: 'us-east-1', status: 'running' });
    clusterId = String(cluster.id);

    expect(await table(['streaming', 'clusters', 'list'])).toMatch(
      new RegExp(
        `^ID\\s+NAME\\s+TIER\\s+REGION\\s+STATUS\\s+BROKERS\\s+BOOTSTRAP\\n${clusterId}\\s+demo\\s+starter\\s+us-east-1\\s+running\\s+1\\s+\\S+:\\d+\\n$`,
      ),
    );
    // By name or by id, the same cluster.
    const byName = await json(['streaming', 'clusters', 'get', 'demo']);
    expect(byName.id).toBe(clusterId);
    expect(await table(['streaming', 'clusters', 'get', clusterId])).toMatch(/^partitions:\s+0 of 50$/m);
  }, 60_000);

  it('creates a topic and shows its partitions', async () => {
    const created = await table([
      'streaming',
      'topics',
      'create',
      'demo',
      'orders',
      '--partitions',
      '3',
      '--retention',
      '3d',
      '--cleanup-policy',
      'delete',
    ]);
    expect(created).toBe('Created topic orders (3 partitions, retention 3d)\n');
    const topic = await eventually(async () => {
      const shown = await json<{ status: string; partition_details: unknown[] }>([
        'streaming',
        'topics',
        'get',
        'demo',
        'orders',
      ]);
      expect(shown.status).toBe('ready');
      return shown;
    }, 15_000);
    expect(topic.partition_details).toHaveLength(3);
    const shown = await table(['streaming', 'topics', 'get', 'demo', 'orders']);
    expect(shown).toMatch(/^PARTITION\s+LEADER\s+START OFFSET\s+END OFFSET\s+SIZE BYTES$/m);
    expect(shown).toMatch(/^2\s+\d+\s+0\s+0\s+\d+$/m);
    expect(await table(['streaming', 'topics', 'list', 'demo'])).toMatch(
      /^orders\s+3\s+1\s+3d\s+delete\s+ready\s+api$/m,
    );
  }, 30_000);

  it('creates a user, shows its password once with a note, and never again without asking', async () => {
    const created = await table([
      'streaming',
      'users',
      'create',
      'demo',
      'app',
      '--consumer-group',
      'g1',
      '--acl',
      'topic:literal:orders:read,write,describe:allow',
    ]);
    const [note, secret] = created.trimEnd().split('\n');
    expect(note).toBe('Created user app. Its password is shown only now; it will not be shown again:');
    expect(secret).toMatch(/^[\w-]{32}$/);
    password = secret!;
    const user = await json(['streaming', 'users', 'get', 'demo', 'app']);
    expect(user).toMatchObject({
      name: 'app',
      mechanism: 'SCRAM-SHA-512',
      consumer_group: 'g1',
      acls: [
        {
          resource_type: 'topic',
          pattern_type: 'literal',
          name: 'orders',
          operations: ['read', 'write', 'describe'],
          permission: 'allow',
        },
      ],
    });
    expect(user).not.toHaveProperty('password');
    expect(await table(['streaming', 'users', 'list', 'demo'])).toMatch(
      /^app\s+SCRAM-SHA-512\s+g1\s+\w+\s+topic:literal:orders:read,write,describe:allow$/m,
    );
    await eventually(async () => {
      expect((await json(['streaming', 'users', 'get', 'demo', 'app'])).status).toBe('ready');
    }, 15_000);
  }, 30_000);

  it('prints librdkafka properties and writes the CA 0644 where --ca-file says', async () => {
    caFile = path.join(configHome, 'certs-demo.pem');
    printedProperties = await table([
      'streaming',
      'credentials',
      'demo',
      '--user',
      'app',
      '--ca-file',
      caFile,
    ]);
    properties = parseProperties(printedProperties);
    const { bootstrap_servers } = await json<{ bootstrap_servers: string[] }>([
      'streaming',
      'bootstrap',
      'demo',
    ]);
    expect(properties).toEqual({
      'bootstrap.servers': bootstrap_servers.join(','),
      'security.protocol': 'SASL_SSL',
      'sasl.mechanisms': 'SCRAM-SHA-512',
      'sasl.username': 'app',
      'sasl.password': password,
      'ssl.ca.location': caFile,
    });
    expect(fs.statSync(caFile).mode & 0o777).toBe(0o644);
    const pem = await table(['streaming', 'bootstrap', 'demo', '--ca']);
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(fs.readFileSync(caFile, 'utf8')).toBe(pem);
  });

  it.each([
    {
      format: 'kafkajs',
      lines: [
        /brokers: \["[\w.-]+:\d+"\]/,
        /ssl: \{ ca: \[fs\.readFileSync\(".*demo-ca\.pem", 'utf8'\)\] \}/,
        /mechanism: 'scram-sha-512',\s+username: "app",\s+password: "[\w-]{32}"/,
      ],
    },
    {
      format: 'java',
      lines: [
        /^security\.protocol=SASL_SSL$/m,
        /^sasl\.mechanism=SCRAM-SHA-512$/m,
        /^sasl\.jaas\.config=org\.apache\.kafka\.common\.security\.scram\.ScramLoginModule required username="app" password="[\w-]{32}";$/m,
        /^ssl\.truststore\.type=PEM$/m,
        /^ssl\.truststore\.location=\/.*\/demo-ca\.pem$/m,
      ],
    },
  ])('prints a $format configuration, the CA at ./<cluster>-ca.pem by default', async ({ format, lines }) => {
    const printed = await table(['streaming', 'credentials', 'demo', '--user', 'app', '--format', format]);
    for (const line of lines) expect(printed).toMatch(line);
    expect(printed).toContain(password);
    expect(fs.readFileSync(path.join(configHome, 'demo-ca.pem'), 'utf8')).toMatch(
      /^-----BEGIN CERTIFICATE-----/,
    );
  });

  it.skipIf(!KCAT_PRESENT)(
    'gives kcat a file it connects with as it is',
    async () => {
      const file = path.join(configHome, 'client.properties');
      fs.writeFileSync(file, printedProperties);
      const listing = await run('kcat', ['-F', file, '-L', '-t', 'orders', '-m', '15']);
      expect(listing.code, listing.stderr).toBe(0);
      expect(listing.stdout).toMatch(/topic "orders" with 3 partitions/);
    },
    30_000,
  );

  it('produces and consumes 10 records in group g1, which groups list then shows', async () => {
    const kafka = kafkaFromProperties(properties);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'orders', messages: RECORDS.map((value) => ({ value })) });
    await producer.disconnect();

    const consumer: Consumer = kafka.consumer({ groupId: 'g1' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'orders', fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
    try {
      await eventually(() => expect([...seen].sort()).toEqual([...RECORDS].sort()), 30_000);
      const groups = await eventually(async () => {
        const rows = await json<{ group_id: string; topics: string[] }[]>([
          'streaming',
          'groups',
          'list',
          'demo',
        ]);
        expect(rows.map((row) => row.group_id)).toContain('g1');
        return rows;
      }, 15_000);
      expect(groups.find((row) => row.group_id === 'g1')?.topics).toEqual(['orders']);
      expect(await table(['streaming', 'groups', 'list', 'demo'])).toMatch(
        /^GROUP\s+STATE\s+MEMBERS\s+TOTAL LAG\s+TOPICS\n(.*\n)*g1\s+\w+\s+\d+\s+\d+\s+orders$/m,
      );
      const group = await json<{ group_id: string; members: unknown[] }>([
        'streaming',
        'groups',
        'get',
        'demo',
        'g1',
      ]);
      expect(group.members).toHaveLength(1);
    } finally {
      await consumer.disconnect();
    }
  }, 90_000);

  it('reads a lag of 0 for g1 as a table per partition and as JSON, exiting 0', async () => {
    const lag = await eventually(async () => {
      const answer = await json<{ total_lag: number; status: string; partitions: { lag: number }[] }>([
        'streaming',
        'groups',
        'lag',
        'demo',
        'g1',
      ]);
      expect(answer.total_lag).toBe(0);
      return answer;
    }, 15_000);
    expect(lag.status).toBe('OK');
    expect(lag.partitions.map((row) => row.lag)).toEqual([0, 0, 0]);
    const shown = await table(['streaming', 'groups', 'lag', 'demo', 'g1']);
    expect(shown).toMatch(/^group g1: total lag 0, \d+s behind, OK$/m);
    expect(shown).toMatch(/^TOPIC\s+PARTITION\s+COMMITTED\s+END OFFSET\s+LAG\s+TIME LAG S\s+STATUS$/m);
    const rows = shown.split('\n').filter((line) => line.startsWith('orders'));
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row).toMatch(/^orders\s+\d\s+(\d+)\s+\1\s+0\s+\d+\s+OK$/);
  }, 30_000);

  it('tails the topic: the newest records as JSON and a table, then follows a new one', async () => {
    const records = await json<{ partition: number; offset: number; value: string; encoding: string }[]>([
      'streaming',
      'topics',
      'tail',
      'demo',
      'orders',
      '--limit',
      '100',
    ]);
    expect(records.map((record) => record.value).sort()).toEqual([...RECORDS].sort());
    expect(records.every((record) => record.encoding === 'utf8')).toBe(true);
    const shown = await table([
      'streaming',
      'topics',
      'tail',
      'demo',
      'orders',
      '--partition',
      '0',
      '--limit',
      '1',
    ]);
    expect(shown).toMatch(/^PARTITION\s+OFFSET\s+TIMESTAMP\s+KEY\s+VALUE\n0\s+\d+\s+\S+Z\s+order-\d$/m);

    const follower = spawn(
      process.execPath,
      [BINARY, 'streaming', 'topics', 'tail', 'demo', 'orders', '--follow', '-o', 'table'],
      {
        cwd: configHome,
        env: { PATH: process.env.PATH, HOME: configHome, XDG_CONFIG_HOME: configHome },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let followed = '';
    follower.stdout.on('data', (chunk: Buffer) => (followed += chunk.toString()));
    try {
      await eventually(() => expect(followed.split('\n').filter(Boolean).length).toBeGreaterThan(0), 15_000);
      const producer = kafkaFromProperties(properties).producer();
      await producer.connect();
      await producer.send({
        topic: 'orders',
        messages: [{ key: 'late', value: 'order-late', partition: 2 }],
      });
      await producer.disconnect();
      await eventually(() => expect(followed).toMatch(/^2\/\d+ {2}\S+Z {2}late {2}order-late$/m), 15_000);
    } finally {
      follower.kill();
    }
  }, 60_000);

  it('reveals the password to write scope and names the scope when a read-only key is refused', async () => {
    const revealed = await json(['streaming', 'users', 'get', 'demo', 'app', '--reveal-password']);
    expect(revealed.password).toBe(password);

    const { key } = await json<{ key: string }>([
      'api-keys',
      'create',
      'reader',
      '--scope',
      'streaming:read',
    ]);
    const env = { CLOUDPLANE_URL: platform.url, CLOUDPLANE_API_KEY: key };
    const refused = await cli(['streaming', 'credentials', 'demo', '--user', 'app'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^error: .+: revealing a user's password needs the streaming:write scope \(request id [0-9a-f-]{36}\)\n$/,
    );
    const plain = await cli(['streaming', 'users', 'get', 'demo', 'app', '-o', 'json'], { env });
    expect(plain.code, plain.stderr).toBe(0);
  });

  it.each([
    {
      args: ['streaming', 'clusters', 'create', 'x', '--tier', 'platinum'],
      code: 2,
      stderr: /Allowed choices are starter, pro, enterprise/,
    },
    {
      args: ['streaming', 'users', 'create', 'demo', 'u', '--acl', 'topic:everything'],
      code: 2,
      stderr: /"topic:everything" is not type:pattern:name:operations:permission/,
    },
    {
      args: ['streaming', 'topics', 'create', 'demo', 't', '--partitions', 'many'],
      code: 2,
      stderr: /expected a whole number from 1/,
    },
    {
      args: ['streaming', 'topics', 'update', 'demo', 'orders'],
      code: 2,
      stderr: /nothing to change: pass --partitions, --retention or --cleanup-policy/,
    },
    {
      args: ['streaming', 'credentials', 'demo', '--user', 'app', '--format', 'python'],
      code: 2,
      stderr: /Allowed choices are kafkajs, librdkafka, java/,
    },
    {
      args: ['streaming', 'topics', 'update', 'demo', 'orders', '--partitions', '2'],
      code: 1,
      stderr:
        /^error: partitions: partitions can only grow: it is 3, asked 2 \(request id [0-9a-f-]{36}\)\n$/,
    },
    {
      args: ['streaming', 'clusters', 'get', 'esc_000000000000'],
      code: 1,
      stderr: /^error: streaming cluster esc_000000000000 not found \(request id [0-9a-f-]{36}\)\n$/,
    },
    {
      args: ['streaming', 'topics', 'list', 'nowhere'],
      code: 1,
      stderr: /^error: no streaming cluster named nowhere \(see cloudplane streaming clusters list\)\n$/,
    },
  ])('exits $code for cloudplane $args', async ({ args, code, stderr }) => {
    const run = await cli(args);
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(stderr);
  });

  it('deletes the topic, the user and then the cluster with --wait', async () => {
    expect(await table(['streaming', 'topics', 'delete', 'demo', 'orders'])).toBe('Deleted topic orders\n');
    await eventually(async () => {
      expect((await cli(['streaming', 'topics', 'get', 'demo', 'orders'])).code).toBe(1);
    }, 15_000);
    expect(await table(['streaming', 'users', 'delete', 'demo', 'app'])).toBe('Deleted user app\n');
    const deleted = await cli([
      'streaming',
      'clusters',
      'delete',
      'demo',
      '--wait',
      '--timeout',
      '60s',
      '-o',
      'table',
    ]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe(`Deleted streaming cluster ${clusterId}\n`);
    expect(deleted.stderr).toContain(`✔ streaming cluster demo: deleted`);
    expect(await json(['streaming', 'clusters', 'list'])).toEqual([]);
  }, 90_000);
});
