import { createAccounts } from '../accounts/index.js';
import { oauthRoutes } from '../apiserver/routes/oauth.js';
import type { Authenticator, RouteModule } from '../apiserver/routing/route.js';
import type { ObjectStore } from '../controllers/runtime/object-store/types.js';
import type { Database } from '../database/database.js';
import type { Logger } from '../observability/logger.js';
import type { Config } from './config.js';

export interface PlatformApi {
  routes: RouteModule[];
  authenticator: Authenticator;
}

/**
 * Every route module of the REST API and the authenticator they share: the one list both the
 * embedded `serve` and the cluster `apiserver` serve, so the two modes cannot drift apart.
 */
export async function platformApi(deps: {
  config: Config;
  logger: Logger;
  database: Database;
  store: ObjectStore;
}): Promise<PlatformApi> {
  const accounts = await createAccounts({
    database: deps.database,
    config: deps.config,
    logger: deps.logger,
  });
  return {
    routes: [...accounts.routes, oauthRoutes(accounts.deps)],
    authenticator: accounts.authenticator,
  };
}
