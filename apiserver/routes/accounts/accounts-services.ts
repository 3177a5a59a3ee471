import { withLogger, type AccountsDeps } from '../../../accounts/deps.js';
import type { Mailer } from '../../../accounts/mailer.js';
import type { RouteContext } from '../../routing/route.js';

/** What the accounts routes need beyond the core services: the accounts' own store and mailer. */
export interface AccountsRouteServices {
  accounts: AccountsDeps;
  mailer: Mailer;
}

/** The accounts dependencies logging with the request's logger, so every line carries its id. */
export function depsOf(
  ctx: Pick<RouteContext, 'logger'> & Pick<AccountsRouteServices, 'accounts'>,
): AccountsDeps {
  return withLogger(ctx.accounts, () => ctx.logger);
}
