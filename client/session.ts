/**
 * Which server a command talks to and as whom, and the SDK client that does it.
 * `CLOUDPLANE_URL` and `CLOUDPLANE_API_KEY` win over the config file (CI sets them); otherwise the
 * context named by `--context` or the current one. A session's access token is refreshed when it
 * has expired (or the server answers 401), and the next refresh token the server hands back is
 * saved at once: each refresh token works only once.
 */
import { createCloudplaneClient, dataOf, type CloudplaneClient } from '../sdk/index.js';
import type { ConfigFile, Context, Credentials, SessionCredentials } from './config-file.js';
import { ClientError, UsageError } from './failures.js';

/** Refresh this long before the recorded expiry, so a request does not arrive just too late. */
const EXPIRY_MARGIN_MS = 10_000;

export interface Target {
  server: string;
  /** The context the credentials come from and refreshed tokens go to; none for the environment's. */
  contextName?: string;
  credentials?: Credentials;
}

export interface TargetChoice {
  env: NodeJS.ProcessEnv;
  /** `--context`. */
  contextName?: string;
}

/** The server and credentials a command uses. */
export function resolveTarget(file: ConfigFile, choice: TargetChoice): Target {
  const config = file.read();
  const name = choice.contextName ?? config.current_context;
  const context: Context | undefined = name === undefined ? undefined : config.contexts[name];
  if (choice.contextName !== undefined && context === undefined) {
    throw new UsageError(
      `no context named ${JSON.stringify(choice.contextName)} (see cloudplane context list)`,
    );
  }
  const envServer = choice.env.CLOUDPLANE_URL;
  const envKey = choice.env.CLOUDPLANE_API_KEY;
  const server = envServer || context?.server;
  if (!server) {
    throw new UsageError('no server: run cloudplane login --server URL, or set CLOUDPLANE_URL');
  }
  if (envKey) return { server, credentials: { type: 'api_key', api_key: envKey } };
  // A context's credentials are never sent to another server than the one they came from.
  if (context && name !== undefined && (!envServer || sameServer(envServer, context.server))) {
    return { server, contextName: name, credentials: context.credentials };
  }
  return { server };
}

function sameServer(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

/** The API as the target's credentials see it. */
export class Session {
  private refreshed = false;

  constructor(
    private readonly file: ConfigFile,
    readonly target: Target,
  ) {}

  /** A client without credentials: sign-up, login, refresh. */
  anonymous(): CloudplaneClient {
    return createCloudplaneClient({ baseUrl: this.target.server });
  }

  /** A client with the target's credentials; fails when there are none. */
  authenticated(): CloudplaneClient {
    const credentials = this.target.credentials;
    if (!credentials) {
      throw new UsageError(`not signed in to ${this.target.server}: run cloudplane login`);
    }
    if (credentials.type === 'api_key') {
      return createCloudplaneClient({ baseUrl: this.target.server, apiKey: credentials.api_key });
    }
    return createCloudplaneClient({
      baseUrl: this.target.server,
      token: () => this.currentToken(),
      fetch: (request) => this.fetchRefreshingOnce(request),
    });
  }

  /** The current access token of the session (refreshed first when it expired). */
  async currentToken(): Promise<string> {
    const session = this.sessionCredentials();
    if (Date.parse(session.expires_at) - EXPIRY_MARGIN_MS <= Date.now()) await this.refresh();
    return this.sessionCredentials().token;
  }

  private sessionCredentials(): SessionCredentials {
    const credentials = this.target.credentials;
    if (credentials?.type !== 'session') throw new Error('not a session');
    return credentials;
  }

  /** A 401 for a token the client thought valid (clocks differ): refresh once and ask again. */
  private async fetchRefreshingOnce(request: Request): Promise<Response> {
    const retry = request.clone();
    const response = await fetch(request);
    if (response.status !== 401 || this.refreshed) return response;
    await this.refresh();
    retry.headers.set('Authorization', `Bearer ${this.sessionCredentials().token}`);
    return fetch(retry);
  }

  private async refresh(): Promise<void> {
    this.refreshed = true;
    const used = this.sessionCredentials();
    const { contextName } = this.target;
    // Another command may have refreshed since this one read the file: its tokens are the live ones.
    const stored =
      contextName === undefined ? undefined : this.file.read().contexts[contextName]?.credentials;
    if (
      stored?.type === 'session' &&
      stored.refresh_token !== used.refresh_token &&
      Date.parse(stored.expires_at) - EXPIRY_MARGIN_MS > Date.now()
    ) {
      this.target.credentials = stored;
      return;
    }
    let next: { token: string; refresh_token: string; expires_at: string };
    try {
      next = dataOf(
        await this.anonymous().POST('/v1/auth/refresh', { body: { refresh_token: used.refresh_token } }),
      );
    } catch (error) {
      throw new ClientError(
        `the session has ended (${error instanceof Error ? error.message : String(error)}): run cloudplane login`,
      );
    }
    const credentials: SessionCredentials = { type: 'session', ...next };
    this.target.credentials = credentials;
    if (contextName !== undefined) {
      this.file.update((config) => {
        const context = config.contexts[contextName];
        if (context) context.credentials = credentials;
      });
    }
  }
}
