import path from 'node:path';
import { ConfigError, type Env } from './env.js';

/** Outgoing e-mail. Without an SMTP URL, messages are written to the outbox directory as .eml files. */
export interface MailConfig {
  smtpUrl: string | undefined;
  from: string;
  /** `<data dir>/outbox`. */
  outboxDir: string;
}

/** An SMTP URL may carry a password: a rejected one is shown with the password masked. */
function smtpUrl(env: Env): string | undefined {
  const name = 'CLOUDPLANE_SMTP_URL';
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const parsed = URL.canParse(raw) ? new URL(raw) : undefined;
  if (parsed?.protocol === 'smtp:' || parsed?.protocol === 'smtps:') return raw;
  if (parsed?.password) parsed.password = '****';
  throw new ConfigError(name, 'a URL (smtp or smtps)', parsed ? parsed.toString() : '(not shown) not a URL');
}

function mailFrom(env: Env): string {
  const name = 'CLOUDPLANE_MAIL_FROM';
  const raw = env[name]?.trim() || 'cloudplane <no-reply@localhost>';
  if (!/^([^<>@\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(raw)) {
    throw new ConfigError(name, 'an address such as "cloudplane <no-reply@example.com>"', raw);
  }
  return raw;
}

export function mailConfig(env: Env, place: { dataDir: string }): MailConfig {
  return { smtpUrl: smtpUrl(env), from: mailFrom(env), outboxDir: path.join(place.dataDir, 'outbox') };
}
