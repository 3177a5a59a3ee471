import type { Authenticator } from './principal.js';
import { createAuthenticator } from './authenticator.js';
import { createAccountsDeps, type AccountsDeps, type AccountsDepsOptions } from './deps.js';
import type { MailConfig } from '../config/mail.js';
import { createMailer, type Mailer } from './mailer.js';

export interface AccountsOptions extends AccountsDepsOptions {
  mail: MailConfig;
  /** Defaults to SMTP from the configuration, or the outbox directory without it. */
  mailer?: Mailer;
}

/** Identity for the facade: the authenticator every request passes, and what its routes and OAuth login build on. */
export interface Accounts {
  authenticator: Authenticator;
  /** For the modules that sign users in too (OAuth): `startSession(accounts.deps, …)`. */
  deps: AccountsDeps;
  mailer: Mailer;
}

/** Builds accounts: derives the keys it needs from the platform key and opens the mailer. */
export async function createAccounts(options: AccountsOptions): Promise<Accounts> {
  const deps = await createAccountsDeps(options);
  const mailer =
    options.mailer ?? createMailer({ config: options.mail, logger: options.logger, now: deps.now });
  return {
    authenticator: createAuthenticator(deps),
    deps,
    mailer,
  };
}
