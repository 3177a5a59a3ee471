/**
 * The signed-in session. The access token (a JWT good for minutes) lives only in this module's
 * memory; the refresh token, single-use and rotated by every refresh, in this tab's
 * `sessionStorage`, so a reload keeps the session and closing the tab ends it. Every call goes
 * through the SDK with the token as a bearer header: no cookie is ever sent, so no other site can
 * make the browser act as the user (see the README for the reasoning against XSS and CSRF).
 */
import { useEffect, useState } from 'preact/hooks';
import { CloudplaneError, createCloudplaneClient, dataOf } from '../../sdk/index.ts';

const REFRESH_KEY = 'cloudplane.refresh_token';
/** Refresh this long before the access token expires, so no call is sent with a stale one. */
const REFRESH_MARGIN_MS = 30_000;

export interface Tokens {
  token: string;
  expires_at: string;
  refresh_token: string;
}

export interface Me {
  id: string;
  email: string;
  name: string;
  email_verified: boolean;
  two_factor_enabled: boolean;
  organizations: { id: string; name: string; role: 'owner' | 'admin' | 'member' }[];
  current_organization_id: string;
}

export type SessionState =
  { status: 'starting' } | { status: 'signed-out'; notice?: string } | { status: 'signed-in'; me: Me };

let access: { token: string; expiresAt: number } | undefined;
let refreshing: Promise<boolean> | undefined;
let state: SessionState = { status: 'starting' };
const listeners = new Set<(state: SessionState) => void>();

function setState(next: SessionState): void {
  state = next;
  for (const listener of listeners) listener(state);
}

/** Calls that need no session (sign-in, sign-up, refresh, reset). */
export const publicApi = createCloudplaneClient({ baseUrl: location.origin });

/** The API as the signed-in user; a call refreshes the access token first when it is about to expire. */
export const api = createCloudplaneClient({ baseUrl: location.origin, token: () => accessToken() });

/**
 * A call to a cluster's API that speaks its own wire format (the schema registry's, Kafka
 * Connect's), on this origin with the session's bearer token; its `{error_code, message}` errors
 * become `CloudplaneError`s carrying the message and the request id.
 */
export async function wireCall<T>(method: string, path: string, body?: unknown): Promise<T> {
  const token = await accessToken();
  const response = await fetch(`${location.origin}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // A proxy's page in front of the API: the status line says what happened.
    parsed = undefined;
  }
  if (response.ok) return parsed as T;
  const { error_code: code, message } = (parsed ?? {}) as { error_code?: number; message?: string };
  throw new CloudplaneError(
    response.status,
    String(code ?? response.status),
    message ?? (response.statusText || `HTTP ${response.status}`),
    response.headers.get('x-request-id') ?? undefined,
    {},
  );
}

async function accessToken(): Promise<string | undefined> {
  if (access && access.expiresAt - Date.now() > REFRESH_MARGIN_MS) return access.token;
  return (await refresh()) ? access?.token : undefined;
}

function keep(tokens: Tokens): void {
  access = { token: tokens.token, expiresAt: Date.parse(tokens.expires_at) };
  sessionStorage.setItem(REFRESH_KEY, tokens.refresh_token);
}

function forget(notice?: string): void {
  access = undefined;
  sessionStorage.removeItem(REFRESH_KEY);
  setState(notice ? { status: 'signed-out', notice } : { status: 'signed-out' });
}

/** Trades the refresh token for new tokens, once at a time; false when the session is over. */
function refresh(): Promise<boolean> {
  refreshing ??= (async () => {
    const refreshToken = sessionStorage.getItem(REFRESH_KEY);
    if (!refreshToken) return false;
    try {
      keep(dataOf(await publicApi.POST('/v1/auth/refresh', { body: { refresh_token: refreshToken } })));
      return true;
    } catch (error) {
      // A refused token ends the session; a network failure keeps it for the next try.
      if (error instanceof CloudplaneError && error.status < 500)
        forget('Your session has ended. Sign in again.');
      return false;
    }
  })().finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}

/** Reads the user (organizations, current one) and publishes the signed-in state. */
export async function loadMe(): Promise<void> {
  const me = dataOf(await api.GET('/v1/auth/me')) as Me;
  setState({ status: 'signed-in', me });
}

/** Starts a session from the tokens a sign-in, a verification or a 2FA step answered. */
export async function signedIn(tokens: Tokens): Promise<void> {
  keep(tokens);
  await loadMe();
}

/** On start: resume the tab's session when it has a refresh token. */
export async function resume(): Promise<void> {
  if (!sessionStorage.getItem(REFRESH_KEY)) return setState({ status: 'signed-out' });
  if (!(await refresh())) {
    if (state.status === 'starting') setState({ status: 'signed-out' });
    return;
  }
  await loadMe().catch(() => forget());
}

/** Ends the session on the server too, then here. */
export async function signOut(): Promise<void> {
  try {
    if (access) await api.POST('/v1/auth/logout');
  } finally {
    forget('You are signed out.');
  }
}

/** Makes another of the user's organizations the current one; the API acts on it from now on. */
export async function switchOrganization(organizationId: string): Promise<void> {
  await api.PATCH('/v1/auth/me', { body: { current_organization_id: organizationId } });
  await loadMe();
}

export function useSession(): SessionState {
  const [current, setCurrent] = useState(state);
  useEffect(() => {
    listeners.add(setCurrent);
    setCurrent(state);
    return () => void listeners.delete(setCurrent);
  }, []);
  return current;
}
