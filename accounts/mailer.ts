import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
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
export function createMailer(options: MailerOptions): Mailer {
  const { config, logger } = options;
  const now = options.now ?? (() => new Date());
  const from = config.from;
  if (config.smtpUrl !== undefined) {
    // Registration waits for its mail: a server that drops packets must fail it in seconds, not
    // after nodemailer's two-minute default. The account is made either way; the failure is logged.
    const smtp = nodemailer.createTransport({
      url: config.smtpUrl,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    return {
      async send(message) {
        await smtp.sendMail({ from, ...message });
        logger.info({ subject: message.subject }, 'mail sent');
      },
    };
  }
  const outbox = config.outboxDir;
  const render = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  // Names sort in the order messages were written, also within one millisecond.
  let sequence = 0;
  return {
    async send(message) {
      sequence += 1;
      const stamp = now().toISOString().replace(/[-:.]/g, '');
      const id = `${String(sequence).padStart(6, '0')}-${randomBase32(8)}`;
      const file = path.join(outbox, `${stamp}-${id}.eml`);
      const rendered = await render.sendMail({ from, ...message });
      await fs.mkdir(outbox, { recursive: true, mode: 0o700 });
      await fs.writeFile(file, rendered.message, { mode: 0o600 });
      logger.info(
        { subject: message.subject, file },
        'mail written to the outbox (no SMTP server configured)',
      );
    },
  };
}
