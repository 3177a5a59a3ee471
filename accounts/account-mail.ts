import type { AccountsDeps } from './deps.js';
import type { Mailer, MailMessage } from './mailer.js';

/** The links and texts of the e-mails accounts send. */

export function verificationMail(baseUrl: string, to: string, token: string): MailMessage {
  const link = `${baseUrl}/verify-email?token=${encodeURIComponent(token)}`;
  return {
    to,
    subject: 'Verify your e-mail address for cloudplane',
    text: [
      'Welcome to cloudplane.',
      '',
      'Confirm that this is your e-mail address by opening this link within 24 hours:',
      '',
      link,
      '',
      'If you did not create an account, ignore this message.',
    ].join('\n'),
  };
}

export function passwordResetMail(baseUrl: string, to: string, token: string): MailMessage {
  const link = `${baseUrl}/reset-password?token=${encodeURIComponent(token)}`;
  return {
    to,
    subject: 'Reset your cloudplane password',
    text: [
      'Someone asked to reset the password of your cloudplane account.',
      '',
      'Choose a new password by opening this link within one hour:',
      '',
      link,
      '',
      'If it was not you, ignore this message: your password stays as it is.',
    ].join('\n'),
  };
}

/**
 * Sends a message and reports a failure in the log rather than to the caller: the account change
 * it accompanies has happened either way.
 */
export async function sendAccountMail(
  deps: AccountsDeps,
  mailer: Mailer,
  message: MailMessage,
): Promise<void> {
  try {
    await mailer.send(message);
  } catch (error) {
    deps.logger.error(
      { err: { message: (error as Error).message }, subject: message.subject },
      'mail could not be sent',
    );
  }
}

export function invitationMail(
  baseUrl: string,
  to: string,
  token: string,
  invitation: { organization: string; inviter: string; role: string; expiresAt: string },
): MailMessage {
  const link = `${baseUrl}/accept-invitation?token=${encodeURIComponent(token)}`;
  return {
    to,
    subject: `${invitation.inviter} invited you to ${invitation.organization} on cloudplane`,
    text: [
      `${invitation.inviter} invited you to join the organization "${invitation.organization}" on cloudplane as ${invitation.role}.`,
      '',
      `Sign in (or create an account) with this address and open this link before ${invitation.expiresAt}:`,
      '',
      link,
      '',
      'If you do not want to join, ignore this message.',
    ].join('\n'),
  };
}
