import fs from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { MailConfig } from '../config/mail.js';
import type { Logger } from '../observability/logger.js';
import { randomBase32 } from './ids.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends the platform's e-mail. Messages carry single-use links: never log their content. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export interface MailerOptions {
  config: MailConfig;
  logger: Logger;
  now?: () => Date;
}

/**
 * Sends through `CLOUDPLANE_SMTP_URL` when set. Otherwise each message is rendered as a real
 * RFC 5322 message and written to `<data dir>/outbox/<timestamp>-<sequence>-<random>.eml` (mode 0600: the links
 * in it sign people in), so a single-machine install can still verify and reset accounts.
 */
/** A transport made on the first message: nodemailer is not loaded at start-up for mail that may never be sent. */
function lazyTransport(options: Record<string, unknown>): () => Promise<Transporter> {
  let transport: Promise<Transporter> | undefined;
  return () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport(options),
    ));
}

export function createMailer(options: MailerOptions): Mailer {
  const { config, logger } = options;
  const now = options.now ?? (() => new Date());
  const from = config.from;
  if (config.smtpUrl !== undefined) {
    // Registration waits for its mail: a server that drops packets must fail it in seconds, not
    // after nodemailer's two-minute default. The account is made either way; the failure is logged.
    const smtp = lazyTransport({
      url: config.smtpUrl,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    return {
      async send(message) {
        await (await smtp()).sendMail({ from, ...message });
        logger.info({ subject: message.subject }, 'mail sent');
      },
    };
  }
  const outbox = config.outboxDir;
  const render = lazyTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  // Names sort in the order messages were written, also within one millisecond.
  let sequence = 0;
  return {
    async send(message) {
      sequence += 1;
      const stamp = now().toISOString().replace(/[-:.]/g, '');
      const id = `${String(sequence).padStart(6, '0')}-${randomBase32(8)}`;
      const file = path.join(outbox, `${stamp}-${id}.eml`);
      const rendered = (await (await render()).sendMail({ from, ...message })) as { message: Buffer };
      await fs.mkdir(outbox, { recursive: true, mode: 0o700 });
      await fs.writeFile(file, rendered.message, { mode: 0o600 });
      logger.info(
        { subject: message.subject, file },
        'mail written to the outbox (no SMTP server configured)',
      );
    },
  };
}
