/**
 * The `cloudplane` client on a real terminal (a tmux pane): `login` hides the password and asks
 * for the two-factor code of an account that has two-factor on, and `--wait` shows a spinner.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../observability/clock.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

const BINARY = path.resolve('dist/cli/cloudplane.js');
const TMUX = ['/usr/bin/tmux', '/usr/local/bin/tmux'].find((candidate) => fs.existsSync(candidate));
if (!TMUX) console.warn('SKIPPING the terminal tests of the cloudplane client: tmux is not installed');

const EMAIL = 'grace@example.com';
const PASSWORD = 'a long enough passphrase';
const SPINNER_FRAMES = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

describe.skipIf(!TMUX)('the cloudplane command line on a terminal', () => {
  let platform: TestPlatform;
  let configHome: string;
  let totp: TOTP;
  let confirmedAt: number;
  const session = `cloudplane-cli-${process.pid}`;

  const tmux = (...args: string[]) => execFileSync(TMUX!, ['-L', session, ...args], { encoding: 'utf8' });
  const screen = () => tmux('capture-pane', '-p', '-t', session);
  /** Runs the client in the pane; the pane prints `EXIT=<code>` when it ends. */
  const runInPane = (args: string) =>
    tmux(
      'send-keys',
      '-t',
      session,
      `clear; XDG_CONFIG_HOME=${configHome} ${process.execPath} ${BINARY} ${args}; echo EXIT=$?`,
      'Enter',
    );

  beforeAll(async () => {
    if (!fs.existsSync(BINARY)) throw new Error(`${BINARY} is missing: run npm run build first`);
    configHome = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-cli-tty-'));
    platform = await startPlatform({ clock: systemClock });
    const post = async (route: string, body?: unknown, token?: string) => {
      const response = await platform.call('POST', route, { body, token });
      expect(response.status, route).toBeLessThan(300);
      return ((await response.json()) as { data: Record<string, unknown> }).data;
    };
    await post('/v1/auth/register', { email: EMAIL, password: PASSWORD, name: 'Grace' });
    const { token } = (await post('/v1/auth/login', { email: EMAIL, password: PASSWORD })) as {
      token: string;
    };
    const { secret } = (await post('/v1/auth/2fa/enable', undefined, token)) as { secret: string };
    totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
    confirmedAt = Date.now();
    await post('/v1/auth/2fa/confirm', { code: totp.generate({ timestamp: confirmedAt }) }, token);
    tmux(
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '200',
      '-y',
      '50',
      `env -i PATH=${process.env.PATH} HOME=${configHome} TERM=xterm-256color bash --norc --noprofile`,
    );
  });
  afterAll(async () => {
    if (TMUX) execFileSync(TMUX, ['-L', session, 'kill-server']);
    await platform?.close();
    fs.rmSync(configHome, { recursive: true, force: true });
  });

  it('logs in with a hidden password and the two-factor code it asks for', async () => {
    runInPane(`login --server ${platform.url} --email ${EMAIL}`);
    await eventually(() => expect(screen()).toContain('Password:'), 20_000);
    tmux('send-keys', '-t', session, PASSWORD, 'Enter');
    await eventually(() => expect(screen()).toContain('Two-factor code:'), 20_000);
    // A code is accepted once: wait for the next period when confirming used this one.
    const period = (time: number) => Math.floor(time / 30_000);
    if (period(Date.now()) === period(confirmedAt)) {
      await new Promise((resolve) =>
        setTimeout(resolve, (period(confirmedAt) + 1) * 30_000 - Date.now() + 100),
      );
    }
    tmux('send-keys', '-t', session, totp.generate(), 'Enter');
    const shown = await eventually(() => {
      const text = screen();
      expect(text).toContain('EXIT=0');
      return text;
    }, 20_000);
    expect(shown).toContain(`Signed in to ${platform.url} as ${EMAIL}`);
    expect(shown).not.toContain(PASSWORD);
  }, 90_000);

  it('shows a spinner while --wait waits, and a tick when done', async () => {
    runInPane('databases create orders --engine postgresql --storage-gb 1 --wait');
    await eventually(
      () => expect(screen()).toMatch(new RegExp(`${SPINNER_FRAMES.source} database orders`)),
      30_000,
    );
    const done = await eventually(() => {
      const text = screen();
      expect(text).toContain('EXIT=0');
      return text;
    }, 90_000);
    expect(done).toContain('✔ database orders: available');
    // On a terminal the answer is a table line, not JSON.
    expect(done).toMatch(/Created database db_\S+ \(postgresql, available\)/);
  }, 120_000);
});
