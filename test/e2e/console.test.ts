/**
 * The web console in a real browser: Debian's chromium, headless, driven by playwright-core
 * against the platform the fixture starts (the built console in `dist/console`). A new user signs
 * up, verifies the e-mail from the mailed link, turns two-factor on and signs in with the code,
 * creates a VPC and watches it become available without a reload, unseals a vault cluster,
 * reveals a secret and makes a policy and a token, creates a database, reveals its credentials
 * and schedules its backups, creates a streaming cluster and a topic, reads records a Kafka client
 * produced and watches a consumer group's lag grow, registers schemas in the cluster's registry (an
 * incompatible one refused with the registry's message) and watches a connector's task fail with
 * its trace, fixes a stack's template, plans and applies it and reads a bootstrap job's logs,
 * reads the usage chart, invites a member and makes an API key.
 * axe-core checks every page; each page is screenshot into `test-results/console/` and checked at
 * 390 px wide.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { Secret, TOTP } from 'otpauth';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../observability/clock.js';
import { runJob } from '../../jobs/job-runner.js';
import { usageAggregation } from '../../jobs/usage-aggregation.js';
import { createLogger } from '../../observability/logger.js';
import { mailedToken, PASSWORD } from '../fixtures/accounts-app.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';
import { startChatProvider, type ChatProvider } from '../fixtures/provider-chat.js';

const CHROMIUM = process.env.CLOUDPLANE_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_PRESENT = fs.existsSync(CHROMIUM);
if (!CHROMIUM_PRESENT) console.warn(`SKIPPING the console's browser suite: ${CHROMIUM} is missing`);

const CONSOLE_BUILD = path.resolve('dist/console/index.html');
const ARTIFACTS = path.resolve('test-results/console');
const AXE_SOURCE = CHROMIUM_PRESENT
  ? fs.readFileSync(path.resolve('node_modules/axe-core/axe.min.js'), 'utf8')
  : '';
const EMAIL = 'grace@example.com';
const PHONE_WIDTH = 390;
const CHAT_WEBHOOK = 'T000/B000/consolechatwebhook';

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

describe.skipIf(!CHROMIUM_PRESENT)('the console in a browser', () => {
  let app: TestPlatform;
  /** The chat provider an integration connects to, a local server speaking its webhook protocol. */
  let chat: ChatProvider;
  let browser: Browser;
  let page: Page;
  /** A session of the same user through the API, for what the test sets up beside the browser. */
  let apiToken: string;
  /** The streaming cluster the streaming test makes, whose registry and connectors come next. */
  let streamingClusterId: string;
  const policyViolations: string[] = [];

  beforeAll(async () => {
    if (!fs.existsSync(CONSOLE_BUILD))
      throw new Error(`${CONSOLE_BUILD} is missing: run npm run build first`);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    chat = await startChatProvider();
    app = await startPlatform({
      clock: systemClock,
      eventStream: true,
      env: {
        CLOUDPLANE_STREAMING_PORTS: '29520-29539',
        CLOUDPLANE_STREAMING_REFRESH_MS: '300',
        CLOUDPLANE_REDIS_PORTS: '27440-27459',
        // Bootstrap jobs run as local processes, so a stack's job logs are real.
        CLOUDPLANE_LOCAL_JOBS: 'enabled',
        // The chat provider listens on 127.0.0.1.
        CLOUDPLANE_EGRESS_ALLOW_PRIVATE: 'true',
      },
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) policyViolations.push(message.text());
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await chat?.close();
  }, 60_000);

  /** axe-core on the page as it stands: no critical or serious violation. */
  async function expectAccessible(name: string): Promise<void> {
    // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
    await page.evaluate(AXE_SOURCE);
    // Expressions as text: they run in the browser, whose globals this Node program does not type.
    const violations = await page.evaluate<AxeViolation[]>(
      'axe.run(document).then((result) => result.violations)',
    );
    const severe = violations
      .filter((violation) => violation.impact === 'critical' || violation.impact === 'serious')
      .map(
        (violation) =>
          `${violation.id}: ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
    expect(severe, `${name}: axe-core violations`).toEqual([]);
  }

  /** Screenshots the page, checks it with axe, and checks it fits a phone without horizontal scrolling. */
  async function checkPage(name: string): Promise<void> {
    await expectAccessible(name);
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
    const viewport = page.viewportSize()!;
    await page.setViewportSize({ width: PHONE_WIDTH, height: 844 });
    try {
      const overflow = await page.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow, `${name} scrolls sideways at ${PHONE_WIDTH} px`).toBeLessThanOrEqual(0);
      await expectAccessible(`${name} at ${PHONE_WIDTH} px`);
      await page.screenshot({ path: path.join(ARTIFACTS, `${name}-phone.png`), fullPage: true });
    } finally {
      await page.setViewportSize(viewport);
    }
  }

  /** A code of the authenticator app, `steps` periods from now. */
  function totp(secret: string, steps = 0): string {
    const generator = new TOTP({
      secret: Secret.fromBase32(secret),
      algorithm: 'SHA1',
      digits: 6,
      period: 30,
    });
    return generator.generate({ timestamp: Date.now() + steps * 30_000 });
  }

  async function api(method: string, route: string, body?: unknown) {
    const response = await app.call(method, route, { token: apiToken, body });
    const text = await response.text();
    expect(response.status, `${method} ${route}: ${text}`).toBeLessThan(300);
    return (text ? JSON.parse(text) : undefined) as { data: Record<string, unknown> } & Record<
      string,
      unknown
    >;
  }

  async function goTo(label: string, heading: string): Promise<void> {
    await page
      .getByRole('navigation', { name: 'Families' })
      .getByRole('link', { name: label, exact: true })
      .click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  }

  it('serves the console to browsers at / with its cache headers and policy; API paths stay the API', async () => {
    const index = await app.request('/', { headers: { accept: 'text/html' } });
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const policy = index.headers.get('content-security-policy')!;
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    const html = await index.text();
    const asset = /src="(\/assets\/index-[\w-]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const script = await app.request(asset!);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    // A deep link is the console too; an API path (even asked by a browser) is the API's 404.
    for (const page of [
      '/vpcs/x',
      '/vaults/x',
      '/databases/x',
      '/streaming-clusters/x/topics/y',
      '/stacks/x',
      '/usage',
    ]) {
      const answer = await app.request(page, { headers: { accept: 'text/html' } });
      expect(answer.headers.get('content-type'), page).toBe('text/html; charset=utf-8');
    }
    const unknownApi = await app.request('/v1/no-such-thing', { headers: { accept: 'text/html' } });
    expect(unknownApi.status).toBe(404);
    expect(((await unknownApi.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect((await app.request('/assets/missing.js')).status).toBe(404);
  });

  it('signs up, and the mailed verification link signs the new user in', async () => {
    await page.goto(`${app.url}/sign-up`);
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    await checkPage('sign-up');
    await page.getByLabel('Name').fill('Grace Hopper');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();

    await page.goto(
      `${app.url}/verify-email?token=${encodeURIComponent(mailedToken(app, EMAIL, 'verify-email'))}`,
    );
    await page.getByRole('heading', { level: 1, name: 'VPCs' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/vpcs');
  });

  it('signs out, then in with Email, Password and the two-factor code', async () => {
    const login = await app.call('POST', '/v1/auth/login', { body: { email: EMAIL, password: PASSWORD } });
    apiToken = ((await login.json()) as { data: { token: string } }).data.token;
    const setup = (await api('POST', '/v1/auth/2fa/enable')).data as { secret: string };
    await api('POST', '/v1/auth/2fa/confirm', { code: totp(setup.secret) });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await checkPage('sign-in');
    // The keyboard reaches the form in order.
    await page.getByLabel('Email').focus();
    await page.keyboard.type(EMAIL);
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.id')).toBe('password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Sign in');
    await page.keyboard.press('Enter');

    await page.getByRole('heading', { name: 'Two-factor code' }).waitFor();
    await checkPage('two-factor');
    // The confirming code's period is spent: the next one is within the accepted window.
    await page.getByLabel('Authentication code').fill(totp(setup.secret, 1));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { level: 1, name: 'VPCs' }).waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
  });

  it("shows the API's message and request id for a refused VPC", async () => {
    await page.getByLabel('Name', { exact: true }).fill('broken');
    await page.getByLabel('CIDR block').fill('10.0.0.0/33');
    await page.getByRole('button', { name: 'Create VPC' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/cidr_block/);
    expect(await alert.textContent()).toMatch(/Request id: req_\w+|Request id: \S+/);
  });

  it('creates a VPC whose status turns available without a reload', async () => {
    await page.getByLabel('Name', { exact: true }).fill('web');
    await page.getByLabel('CIDR block').fill('10.20.0.0/16');
    await page.getByRole('button', { name: 'Create VPC' }).click();
    await page.getByRole('heading', { level: 1, name: 'VPC web' }).waitFor();
    // A mark on the document: still there at the end means the page was never reloaded.
    await page.evaluate('window.sameDocument = true');
    await page.locator('.facts [data-status="available"]').waitFor({ timeout: 30_000 });
    expect(await page.evaluate<boolean>('window.sameDocument === true')).toBe(true);

    await page.getByLabel('Subnet name').fill('public-a');
    await page.getByLabel('Subnet CIDR block').fill('10.20.1.0/24');
    await page.getByRole('button', { name: 'Add subnet' }).click();
    await page.getByRole('cell', { name: 'public-a' }).waitFor();
    await checkPage('vpc-detail');
    await goTo('VPCs', 'VPCs');
    await page.getByRole('link', { name: 'web' }).waitFor();
    await checkPage('vpcs');
  }, 60_000);

  it('reconnects after a drop and catches up on the events it missed', async () => {
    await app.interruptEventStream(async () => {
      await page.getByText('Offline, retrying').waitFor({ timeout: 15_000 });
      await api('POST', '/api/v1/vpcs', {
        name: 'made-while-dropped',
        cidr_block: '10.30.0.0/16',
        region: 'us-east-1',
      });
    });
    await page.getByText('Live', { exact: true }).waitFor({ timeout: 40_000 });
    // Only the replayed vpc.created (asked `since` the last event seen) makes the list read again.
    await page.getByRole('link', { name: 'made-while-dropped' }).waitFor({ timeout: 15_000 });
  }, 90_000);

  it('keeps its contrast in the dark scheme and stops moving when asked to', async () => {
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await expectAccessible('vpcs-dark');
    await page.screenshot({ path: path.join(ARTIFACTS, 'vpcs-dark.png'), fullPage: true });
    const background = await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
    expect(background).toBe('rgb(17, 20, 24)');
    const pulse = await page.evaluate<string>(
      'getComputedStyle(document.querySelector(".connection"), "::before").animationName + "|" + getComputedStyle(document.body).animationName',
    );
    expect(pulse).toBe('none|none');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
  });

  it('creates a vault cluster, unseals it with three of its keys, reveals a secret, round-trips transit and makes a policy and a token', async () => {
    await goTo('Vault', 'Vault');
    await page.getByLabel('Name', { exact: true }).fill('app');
    await page.getByLabel('Unseal automatically (the platform keeps the key)').uncheck();
    await page.getByRole('button', { name: 'Create vault cluster' }).click();
    await page.getByTestId('unseal-keys').waitFor();
    const keys = await page.getByTestId('unseal-keys').locator('code').allTextContents();
    expect(keys).toHaveLength(5);
    await page.getByRole('button', { name: 'I have kept them' }).click();
    await page.getByRole('heading', { level: 1, name: 'Vault app' }).waitFor();
    await checkPage('vault-sealed');
    for (const [index, key] of keys.slice(0, 3).entries()) {
      await page.getByLabel('Unseal key').fill(key);
      await page.getByRole('button', { name: 'Give key' }).click();
      if (index < 2) await page.getByText(`${index + 1} of 3 keys given`).waitFor();
    }
    await page.getByRole('heading', { name: 'Secrets' }).waitFor();

    await page.getByLabel('Path').fill('app/config');
    await page.getByLabel('Key', { exact: true }).fill('password');
    await page.getByLabel('Value').fill('s3cret-value');
    await page.getByRole('button', { name: 'Write secret' }).click();
    await page.getByRole('button', { name: 'Reveal app/config' }).click();
    expect(await page.getByTestId('secret-values').textContent()).toContain('s3cret-value');

    await page.getByLabel('Plaintext').fill('hello, transit');
    await page.getByRole('button', { name: 'Encrypt' }).click();
    await eventually(async () =>
      expect(await page.getByLabel('Ciphertext').inputValue()).toMatch(/^vault:v1:/),
    );
    await page.getByLabel('Plaintext').fill('');
    await page.getByRole('button', { name: 'Decrypt' }).click();
    expect(await page.getByTestId('decrypted').textContent()).toBe('hello, transit');

    // A policy, a token holding it (shown once, copied), the token revoked, the policy deleted.
    await page.getByLabel('Policy name').fill('app-read');
    await page.getByRole('button', { name: 'Write policy' }).click();
    const policies = page.getByRole('table', { name: 'Policies of this cluster' });
    await policies.getByRole('cell', { name: 'app-read', exact: true }).waitFor();
    expect(await policies.textContent()).toContain('secret/data/app/*');
    await page.getByLabel('Token name').fill('ci');
    await page.getByRole('checkbox', { name: 'app-read', exact: true }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const shownToken = page.getByTestId('new-vault-token');
    await shownToken.waitFor();
    const token = (await shownToken.textContent())!;
    expect(token).toMatch(/^\S{20,}$/);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.url });
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(token);
    const tokens = page.getByRole('table', { name: 'Live tokens' });
    const tokenRow = tokens.locator('tr', { hasText: 'app-read' });
    await tokenRow.waitFor();
    expect(await tokens.textContent()).not.toContain(token);
    await page.getByRole('button', { name: 'Done' }).click();
    await checkPage('vault-detail');
    page.once('dialog', (dialog) => void dialog.accept());
    await tokenRow.getByRole('button', { name: /^Revoke the token / }).click();
    await eventually(async () => expect(await tokenRow.count()).toBe(0));
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete the policy app-read' }).click();
    await eventually(async () =>
      expect(await policies.getByRole('cell', { name: 'app-read', exact: true }).count()).toBe(0),
    );
  }, 90_000);

  it('creates a database, reveals its credentials only when asked and schedules its backups', async () => {
    await goTo('Databases', 'Databases');
    await page.getByLabel('Name', { exact: true }).fill('cache');
    await page.getByLabel('Engine').selectOption('redis');
    await page.getByRole('button', { name: 'Create database' }).click();
    await page.getByRole('heading', { level: 1, name: 'Database cache' }).waitFor();
    await page.locator('.facts [data-status="available"]').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('credentials').count()).toBe(0);
    await page.getByRole('button', { name: 'Reveal' }).click();
    const credentials = page.getByTestId('credentials');
    await credentials.waitFor();
    expect(await credentials.textContent()).toMatch(/password/);

    await page.getByRole('button', { name: 'Back up now' }).click();
    const backups = page
      .getByRole('table')
      .filter({ has: page.getByRole('columnheader', { name: 'Expires' }) });
    await backups.locator('[data-status="completed"]').waitFor({ timeout: 60_000 });
    await backups.getByRole('button', { name: /^Restore the backup of/ }).click();
    await page.getByText('Restoring into a new database:').waitFor();

    // A backup schedule: the API's refusal at the form, then set, shown with its next run, removed.
    await page.getByText('No schedule: backups are taken only when asked.').waitFor();
    const scheduleForm = page.getByRole('form', { name: 'Schedule backups' });
    await page.getByLabel('Cron expression').fill('61 * * * *');
    await scheduleForm.getByRole('button', { name: 'Save schedule' }).click();
    expect(await scheduleForm.getByRole('alert').textContent()).toMatch(/cron/);
    await page.getByLabel('Cron expression').fill('30 2 * * *');
    await page.getByLabel('Keep each backup (days)').fill('14');
    await scheduleForm.getByRole('button', { name: 'Save schedule' }).click();
    const schedule = page.getByTestId('backup-schedule');
    await schedule.waitFor();
    expect(await schedule.textContent()).toMatch(/30 2 \* \* \*.*14 days.*Next backup/);
    await checkPage('database-detail');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Remove schedule' }).click();
    await page.getByText('No schedule: backups are taken only when asked.').waitFor();
    expect(await schedule.count()).toBe(0);
  }, 90_000);

  it('creates an NFS share that becomes available with its mount target', async () => {
    await goTo('NFS shares', 'NFS shares');
    await page.getByLabel('Name', { exact: true }).fill('media');
    await page.getByLabel('Size (GB)').fill('2');
    await page.getByRole('button', { name: 'Create share' }).click();
    const row = page.locator('tr', { hasText: 'media' });
    await row.locator('[data-status="available"]').waitFor({ timeout: 30_000 });
    expect(await row.textContent()).toMatch(/of 2 GB/);
    await checkPage('nfs-shares');
  }, 60_000);

  it("creates a streaming cluster and a topic, reads what a Kafka client produced and watches a group's lag grow", async () => {
    await goTo('Streaming', 'Streaming');
    await page.getByLabel('Name', { exact: true }).fill('events');
    await page.getByRole('button', { name: 'Create cluster' }).click();
    await page.getByRole('heading', { level: 1, name: 'Cluster events' }).waitFor();
    await page.locator('.facts [data-status="running"]').waitFor({ timeout: 60_000 });
    await page.getByLabel('Topic name').fill('orders');
    await page.getByRole('button', { name: 'Create topic' }).click();
    await page
      .locator('tr', { hasText: 'orders' })
      .locator('[data-status="ready"]')
      .waitFor({ timeout: 30_000 });
    await checkPage('streaming-cluster');

    const clusterId = new URL(page.url()).pathname.split('/')[2]!;
    streamingClusterId = clusterId;
    await page.getByLabel('User name').fill('shop');
    await page.getByLabel('Topic prefix').fill('ord');
    await page.getByRole('button', { name: 'Create user' }).click();
    const shownPassword = page.getByTestId('new-user-password');
    await shownPassword.waitFor();
    const password = (await shownPassword.textContent())!;
    expect(password.length).toBeGreaterThanOrEqual(16);
    await page
      .locator('li', { hasText: 'shop' })
      .locator('[data-status="ready"]')
      .waitFor({ timeout: 30_000 });
    const bootstrap = (await api('GET', `/v1/streaming/clusters/${clusterId}/bootstrap`)).data as {
      bootstrap_servers: string[];
      ca_certificate: string;
    };
    const kafka = new Kafka({
      clientId: 'console-test',
      brokers: bootstrap.bootstrap_servers,
      ssl: { ca: [bootstrap.ca_certificate] },
      sasl: { mechanism: 'scram-sha-512', username: 'shop', password },
      logLevel: logLevel.NOTHING,
      retry: { retries: 2 },
    });
    const produce = async (messages: { key: string; value: string }[]) => {
      const producer = kafka.producer();
      await producer.connect();
      try {
        await producer.send({ topic: 'orders', messages });
      } finally {
        await producer.disconnect();
      }
    };
    await eventually(
      () =>
        produce([
          { key: 'o-1', value: '{"total": 12.5}' },
          { key: 'o-2', value: '{"total": 99}' },
        ]),
      30_000,
    );

    await page.getByRole('link', { name: 'orders' }).click();
    await page.getByRole('heading', { level: 1, name: 'Topic orders' }).waitFor();
    const messages = page.getByTestId('messages');
    await messages.getByText('{"total": 99}').waitFor();
    expect(await messages.textContent()).toContain('o-1');
    await checkPage('topic-messages');

    // A group that committed past the first record only: one behind, then two once more is produced,
    // the chart sampling the lag while its page stays open.
    const consumer = kafka.consumer({ groupId: 'ord-readers' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'orders', fromBeginning: true });
    const first = await new Promise<{ partition: number; offset: string }>((resolve) => {
      void consumer.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => resolve({ partition, offset: message.offset }),
      });
    });
    await consumer.commitOffsets([
      { topic: 'orders', partition: first.partition, offset: String(Number(first.offset) + 1) },
    ]);
    await consumer.disconnect();
    await page.getByRole('link', { name: '← The cluster' }).click();
    await page.getByRole('link', { name: 'ord-readers' }).click();
    await page.getByRole('heading', { level: 1, name: 'Consumer group ord-readers' }).waitFor();
    const totalLag = page.getByTestId('total-lag');
    await page.getByTestId('total-lag').getByText('1', { exact: true }).waitFor();
    await page.evaluate('window.sameDocument = true');
    await produce([{ key: 'o-3', value: '{"total": 7}' }]);
    await totalLag.getByText('2', { exact: true }).waitFor({ timeout: 20_000 });
    const caption = page.locator('#lag-chart-caption');
    expect(await caption.textContent()).toMatch(
      /^Total lag over \d+ samples, read every 3 s while this page is open \(the platform keeps no lag history\); now 2, highest 2\.$/,
    );
    expect(await page.evaluate<boolean>('window.sameDocument === true')).toBe(true);
    expect(await page.getByRole('table', { name: 'Lag per partition' }).textContent()).toContain('orders');
    await checkPage('consumer-group-lag');
  }, 180_000);

  it("registers schemas in the cluster's registry, the incompatible one refused at its field", async () => {
    await page.goto(`${app.url}/streaming-clusters/${streamingClusterId}`);
    await page.getByRole('heading', { level: 1, name: 'Cluster events' }).waitFor();
    await page.getByRole('link', { name: 'Schema registry' }).click();
    await page.getByRole('heading', { level: 1, name: 'Schema registry' }).waitFor();
    await page.getByTestId('global-compatibility-level').getByText('BACKWARD').waitFor();

    const order = {
      type: 'record',
      name: 'Order',
      namespace: 'shop',
      fields: [{ name: 'id', type: 'long' }],
    };
    await page.getByLabel('Subject', { exact: true }).fill('orders-value');
    await page.getByLabel('Schema', { exact: true }).fill(JSON.stringify(order));
    await page.getByRole('button', { name: 'Register schema' }).click();
    const subjects = page.getByTestId('subjects');
    await subjects.getByRole('button', { name: 'orders-value' }).waitFor();
    const detail = page.getByTestId('subject-detail');
    await detail.getByRole('button', { name: 'Version 1' }).click();
    await detail.getByTestId('schema-text-shown').getByText('"name": "Order"').waitFor();

    // A field without a default breaks BACKWARD compatibility: the registry's 409 is shown at the schema.
    const broken = { ...order, fields: [...order.fields, { name: 'age', type: 'int' }] };
    await page.getByLabel('Schema', { exact: true }).fill(JSON.stringify(broken));
    await page.getByRole('button', { name: 'Register schema' }).click();
    const refusal = page.getByTestId('schema-text-error');
    await refusal.getByText("field 'shop.Order.age'", { exact: false }).waitFor();
    expect(await page.getByLabel('Schema', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await detail.getByRole('button', { name: /^Version/ }).count()).toBe(1);

    // A default makes it compatible: version 2 appears.
    const evolved = { ...order, fields: [...order.fields, { name: 'age', type: 'int', default: 0 }] };
    await page.getByLabel('Schema', { exact: true }).fill(JSON.stringify(evolved));
    await page.getByRole('button', { name: 'Register schema' }).click();
    await page.getByTestId('subject-detail').getByRole('button', { name: 'Version 2' }).waitFor();

    await page.getByLabel('Compatibility level').last().selectOption('FULL');
    await page.getByRole('button', { name: 'Set compatibility' }).last().click();
    await page.getByTestId('global-compatibility-level').getByText('FULL').waitFor();
    await page.getByTestId('subject-compatibility-level').getByText('the registry\u2019s (FULL)').waitFor();
    await page.getByLabel('Compatibility level').first().selectOption('NONE');
    await page.getByRole('button', { name: 'Set compatibility' }).first().click();
    await page.getByTestId('subject-compatibility-level').getByText('NONE', { exact: true }).waitFor();
    await page.getByTestId('subject-detail').getByRole('button', { name: 'Version 2' }).click();
    await page.getByTestId('schema-text-shown').getByText('"default": 0').waitFor();
    await checkPage('schema-registry');
  });

  it('creates a connector whose task fails against a database that refuses, and shows the task trace', async () => {
    await page.getByRole('link', { name: '← The cluster' }).click();
    await page.getByRole('link', { name: 'Connectors' }).click();
    await page.getByRole('heading', { level: 1, name: 'Connectors' }).waitFor();
    await page.getByLabel('Connector name').fill('orders-archive');
    await page.getByLabel('Configuration (JSON)').fill('{"connector.class": ');
    await page.getByRole('button', { name: 'Create connector' }).click();
    await page.getByTestId('connector-config-error').getByText('the configuration is not JSON').waitFor();

    // Kafka Connect's own refusal, at the field.
    await page
      .getByLabel('Configuration (JSON)')
      .fill(JSON.stringify({ 'connector.class': 'S3SinkConnector', topics: 'orders' }));
    await page.getByRole('button', { name: 'Create connector' }).click();
    await page.getByTestId('connector-config-error').getByText('s3.bucket.name', { exact: false }).waitFor();

    // Nothing listens on port 1: the sink's task fails, and the page shows it without a reload.
    await page.getByLabel('Configuration (JSON)').fill(
      JSON.stringify({
        'connector.class': 'io.confluent.connect.jdbc.JdbcSinkConnector',
        topics: 'orders',
        'connection.url': 'jdbc:postgresql://127.0.0.1:1/shop',
        'connection.user': 'writer',
        'connection.password': 'not-used',
        'auto.create': 'true',
      }),
    );
    await page.evaluate('window.sameDocument = true');
    await page.getByRole('button', { name: 'Create connector' }).click();
    const task = page.getByTestId('task-orders-archive-0');
    await task.locator('[data-status="failed"]').waitFor({ timeout: 60_000 });
    expect(await task.locator('.task-trace').textContent()).toContain('127.0.0.1:1');
    expect(await page.evaluate<boolean>('window.sameDocument === true')).toBe(true);
    expect(await page.getByRole('table', { name: /^Connectors and their tasks/ }).textContent()).toContain(
      'orders-archive',
    );
    await checkPage('connectors');

    const row = page.getByTestId('connector-orders-archive');
    await page.getByRole('button', { name: 'Pause orders-archive' }).click();
    await row.locator('[data-status="paused"]').first().waitFor();
    await page.getByRole('button', { name: 'Resume orders-archive' }).click();
    await page.getByRole('button', { name: 'Pause orders-archive' }).waitFor();

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete orders-archive' }).click();
    await page.getByTestId('connectors').getByText('No connector yet.').waitFor();
  }, 120_000);

  it("shows a template's problems at their paths, plans it as a diff, applies it through its phases and shows a job's logs", async () => {
    await goTo('Stacks', 'Stacks');
    const editor = page.getByLabel('Template (JSON)');
    const example = await editor.inputValue();
    await page.getByLabel('Name', { exact: true }).fill('shop');
    await editor.fill(example.replace('${resources.cache.endpoint}', '${resources.nothing.endpoint}'));
    await page.getByRole('button', { name: 'Create stack' }).click();
    const problems = page.getByTestId('template-problems');
    await problems.waitFor();
    expect(await problems.textContent()).toContain('template.outputs.cache_endpoint.value');
    await checkPage('stack-problems');

    await editor.fill(example);
    await page.getByRole('button', { name: 'Create stack' }).click();
    await page.getByRole('heading', { level: 1, name: 'Stack shop' }).waitFor();
    const diff = page.getByTestId('plan-diff');
    await diff.getByText('resources.cache').waitFor();
    expect(await diff.textContent()).toMatch(/\+\s*create\s*resources\.cache/);
    await page.getByRole('button', { name: 'Apply' }).click();
    const phases = page.getByTestId('phases');
    await phases.waitFor();
    for (const phase of ['infrastructure', 'secrets', 'bootstrap', 'services']) {
      await phases.locator(`[data-phase="${phase}"] [data-status="completed"]`).waitFor({ timeout: 60_000 });
    }
    await page.locator('.facts [data-status="active"]').waitFor({ timeout: 30_000 });
    await page.getByRole('cell', { name: 'api_token', exact: true }).waitFor();
    expect(await page.locator('tr', { hasText: 'api_token' }).textContent()).toContain('********');
    await checkPage('stack-detail');

    // A bootstrap job added and applied: its last run in the jobs table, and what it printed.
    const withJob = JSON.parse(await editor.inputValue()) as Record<string, unknown>;
    withJob.bootstrap = {
      seed: {
        image: 'node:20',
        command: [process.execPath, '-e', 'console.log("seeded", 6 * 7)'],
        timeout: '60s',
      },
    };
    await editor.fill(JSON.stringify(withJob, null, 2));
    await page.getByRole('button', { name: 'Save template' }).click();
    await diff.getByText('bootstrap.seed').waitFor();
    await page.getByRole('button', { name: 'Apply' }).click();
    const jobs = page.getByRole('region', { name: 'Bootstrap jobs, their last run' });
    await jobs
      .locator('tr', { hasText: 'seed' })
      .locator('[data-status="succeeded"]')
      .waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Logs of the job seed' }).click();
    await page
      .getByTestId('logs-seed')
      .getByText(/seeded 42/)
      .waitFor();
    await checkPage('stack-job-logs');
  }, 120_000);

  it('connects a chat workspace, tests the connection and deletes the integration', async () => {
    chat.webhooks.add(CHAT_WEBHOOK);
    chat.channels.add('#deployments');
    await goTo('Integrations', 'Integrations');
    await page.getByLabel('Name', { exact: true }).fill('team-chat');
    await page.getByLabel('Incoming webhook URL').fill(chat.webhookUrl(CHAT_WEBHOOK));
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Integration team-chat' }).waitFor();
    await page.locator('.facts [data-status="connected"]').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByTestId('test-result').locator('[data-status="passed"]').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('test-result').textContent()).toMatch(/Latency\d+ ms/);
    expect(await page.getByRole('table', { name: 'Events forwarded, newest first' }).count()).toBe(1);
    await checkPage('integration-detail');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete integration' }).click();
    await page.getByRole('heading', { level: 1, name: 'Integrations' }).waitFor();
    await checkPage('integrations');
  }, 90_000);

  it('charts usage and cost per meter with a caption and a dollar table', async () => {
    await runJob(
      usageAggregation,
      {
        database: app.database,
        config: app.config.jobs,
        logger: createLogger('silent'),
        now: () => new Date(),
      },
      'manual',
    );
    await goTo('Usage', 'Usage');
    const caption = page.locator('figcaption');
    await caption.waitFor();
    expect(await caption.textContent()).toMatch(/^Cost per meter from .+ total \$\d+\.\d{2}/);
    await page.getByRole('img').waitFor();
    await page.getByRole('table', { name: 'Cost lines in US dollars' }).waitFor();
    await checkPage('usage');
  });

  it('invites a member to the team', async () => {
    await goTo('Team', 'Team');
    await page.getByRole('cell', { name: EMAIL, exact: true }).waitFor();
    await page.getByLabel('Email address').fill('ada@example.com');
    await page.getByLabel('Role', { exact: true }).selectOption('admin');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page
      .getByRole('table', { name: 'Pending invitations' })
      .getByRole('cell', { name: 'ada@example.com', exact: true })
      .waitFor();
    await checkPage('team');
  });

  it('makes an API key, shown once', async () => {
    await goTo('API keys', 'API keys');
    await page.getByLabel('Key name').fill('deploys');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = page.getByTestId('new-api-key');
    await key.waitFor();
    expect(await key.textContent()).toMatch(/\S{20,}/);
    await page.getByRole('cell', { name: 'deploys', exact: true }).waitFor();
    await checkPage('api-keys');
  });

  it('kept to its Content-Security-Policy on every page', () => {
    expect(policyViolations).toEqual([]);
  });
});
