/**
 * Outbound safety for provider and webhook URLs. A URL a tenant gives us must not reach the
 * platform's own network: every address its host resolves to is checked, and the connection is
 * made to exactly the address that was checked (DNS pinned), so a name that answers a public
 * address at check time and a private one at connect time gains nothing. Redirects are followed
 * by hand, each hop checked again; responses are limited in size and time.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface EgressPolicy {
  /**
   * Allow private, loopback and other internal addresses, and plain http
   * (`CLOUDPLANE_EGRESS_ALLOW_PRIVATE`; for development and tests against local servers).
   */
  allowPrivate: boolean;
  /**
   * Internal addresses the operator vouches for (an in-house provider endpoint): reachable, over
   * http too, even without `allowPrivate`. Every other internal address stays refused.
   */
  trustedAddresses?: readonly string[];
  /** Resolves a host name to every address it has; `dns.lookup(all)` when omitted. */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Connect plus whole response, in milliseconds (default 10 000). */
  timeoutMs?: number;
  /** The largest response body accepted, in bytes (default 1 MiB). */
  maxResponseBytes?: number;
  /** Redirects followed before giving up (default 3). */
  maxRedirects?: number;
}

export type EgressRefusal =
  | 'invalid-url'
  | 'scheme'
  | 'private-address'
  | 'unresolvable'
  | 'too-many-redirects'
  | 'response-too-large'
  | 'timeout'
  | 'connection-failed';

/** An outbound request that was refused or could not complete; the message names the reason. */
export class EgressError extends Error {
  constructor(
    readonly reason: EgressRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'EgressError';
  }
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
const DEFAULT_MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
}

/**
 * Why an address is not a public unicast one, or undefined when it is. IPv4-mapped IPv6 addresses
 * are judged as the IPv4 address they carry.
 */
export function internalAddressRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const range = ipaddr.process(address).range();
  return range === 'unicast' ? undefined : range;
}

function literalAddress(hostname: string): ResolvedAddress | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  if (!ipaddr.isValid(bare)) return undefined;
  return { address: bare, family: ipaddr.parse(bare).kind() === 'ipv6' ? 6 : 4 };
}

function parseUrl(url: string | URL): URL {
  if (url instanceof URL) return url;
  try {
    return new URL(url);
  } catch {
    throw new EgressError('invalid-url', `${JSON.stringify(url)} is not an absolute URL`);
  }
}

interface VettedUrl {
  url: URL;
  pinned: ResolvedAddress;
}

function isTrusted(address: string, policy: EgressPolicy): boolean {
  const normalised = ipaddr.process(address).toString();
  return (policy.trustedAddresses ?? []).some((trusted) => ipaddr.process(trusted).toString() === normalised);
}

async function resolveHost(parsed: URL, policy: EgressPolicy): Promise<ResolvedAddress[]> {
  const literal = literalAddress(parsed.hostname);
  if (literal !== undefined) return [literal];
  let addresses: ResolvedAddress[];
  try {
    addresses = await (policy.resolve ?? systemResolve)(parsed.hostname);
  } catch {
    throw new EgressError('unresolvable', `host ${parsed.hostname} does not resolve`);
  }
  if (addresses.length === 0) throw new EgressError('unresolvable', `host ${parsed.hostname} has no address`);
  return addresses;
}

/** Host names (and their suffixes) that only ever mean an internal service. */
const INTERNAL_NAMES = ['localhost', 'metadata', 'instance-data', 'metadata.google.internal'];
const INTERNAL_SUFFIXES = [
  '.localhost',
  '.internal',
  '.local',
  '.localdomain',
  '.home.arpa',
  '.cluster.local',
];

/**
 * Why a host name is internal by its name alone (`localhost.`, `*.internal`, cloud metadata
 * names), or undefined. Checked before any DNS lookup, so such a name is refused whatever a
 * resolver would answer for it; a trailing dot does not change what a name means.
 */
export function internalHostName(hostname: string): string | undefined {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  if (INTERNAL_NAMES.includes(name)) return `${name} names an internal service`;
  const suffix = INTERNAL_SUFFIXES.find((entry) => name.endsWith(entry));
  if (suffix !== undefined) return `names under ${suffix} are internal`;
  if (!name.includes('.') && literalAddress(hostname) === undefined)
    return 'a name without a domain is internal';
  return undefined;
}

async function vet(url: string | URL, policy: EgressPolicy): Promise<VettedUrl> {
  const parsed = parseUrl(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new EgressError('scheme', `${parsed.protocol.replace(/:$/, '')} URLs are not allowed; use https`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new EgressError('invalid-url', 'URLs with user information are not allowed');
  }
  if (!policy.allowPrivate) {
    const internal = internalHostName(parsed.hostname);
    if (internal !== undefined) {
      throw new EgressError('private-address', `host ${parsed.hostname} is not a public host: ${internal}`);
    }
  }
  const addresses = await resolveHost(parsed, policy);
  if (!policy.allowPrivate) {
    for (const { address } of addresses) {
      const range = internalAddressRange(address);
      if (range !== undefined && !isTrusted(address, policy)) {
        throw new EgressError(
          'private-address',
          `host ${parsed.hostname} resolves to ${address} (${range}), which is not a public address`,
        );
      }
    }
  }
  const allTrusted = addresses.every(({ address }) => isTrusted(address, policy));
  if (parsed.protocol === 'http:' && !policy.allowPrivate && !allTrusted) {
    throw new EgressError('scheme', 'http URLs are not allowed; use https');
  }
  return { url: parsed, pinned: addresses[0]! };
}

/**
 * Checks that a URL may be reached: https (http too when private egress is allowed), and every
 * address its host resolves to public. Returns the parsed URL; throws `EgressError` otherwise.
 */
export async function checkOutboundUrl(url: string | URL, policy: EgressPolicy): Promise<URL> {
  return (await vet(url, policy)).url;
}

export interface SafeRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Aborts the request early, on top of the policy's time limit. */
  signal?: AbortSignal;
}

/** What `safeFetch` answers: the parts of a fetch `Response` callers use, with the body already read. */
export interface SafeResponse {
  status: number;
  ok: boolean;
  /** The URL that answered, after redirects. */
  url: string;
  headers: Headers;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

function toHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}

function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all === true) {
      callback(null, [{ address: pinned.address, family: pinned.family }]);
    } else {
      callback(null, pinned.address, pinned.family);
    }
  };
}

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function readLimited(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        response.destroy();
        reject(new EgressError('response-too-large', `the response exceeds ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    response.on('end', () => resolve(Buffer.concat(chunks)));
    response.on('error', reject);
  });
}

function send(
  target: VettedUrl,
  init: SafeRequestInit,
  signal: AbortSignal,
  maxBytes: number,
): Promise<RawResponse> {
  const transport = target.url.protocol === 'https:' ? https : http;
  const headers: Record<string, string> = { ...init.headers };
  if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
  return new Promise((resolve, reject) => {
    const request = transport.request(
      target.url,
      { method: init.method ?? 'GET', headers, lookup: pinnedLookup(target.pinned), signal },
      (response) => {
        readLimited(response, maxBytes).then(
          (body) => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
          (error: unknown) =>
            reject(
              signal.aborted
                ? new EgressError('timeout', `${target.url.host} did not answer in time`)
                : error,
            ),
        );
      },
    );
    request.on('error', (error) => {
      if (signal.aborted) {
        reject(new EgressError('timeout', `${target.url.host} did not answer in time`));
      } else if (error instanceof EgressError) {
        reject(error);
      } else {
        reject(new EgressError('connection-failed', `cannot reach ${target.url.host}: ${error.message}`));
      }
    });
    request.end(init.body);
  });
}

function redirected(init: SafeRequestInit, status: number, from: URL, to: URL): SafeRequestInit {
  const method = (init.method ?? 'GET').toUpperCase();
  const keepsBody = status === 307 || status === 308 || (method !== 'POST' && status !== 303);
  const headers = { ...init.headers };
  // Credentials are for the origin they were given for, never for wherever it redirects.
  if (from.origin !== to.origin) {
    for (const name of Object.keys(headers)) {
      if (/^(authorization|cookie|dd-api-key|dd-application-key)$/i.test(name)) delete headers[name];
    }
  }
  if (keepsBody) return { ...init, headers };
  for (const name of Object.keys(headers)) if (/^content-(type|length)$/i.test(name)) delete headers[name];
  return { method: status === 303 && method === 'HEAD' ? 'HEAD' : 'GET', headers, signal: init.signal };
}

/**
 * Sends an HTTP request to a vetted URL: the host is resolved once, every address checked, and
 * the connection made to the checked address with the original Host and SNI. Redirects are
 * followed up to the policy's limit, each hop vetted again. The whole exchange is bounded by the
 * policy's time limit and the body by its size limit; any refusal throws `EgressError`.
 */
export async function safeFetch(
  url: string | URL,
  init: SafeRequestInit,
  policy: EgressPolicy,
): Promise<SafeResponse> {
  const timeout = AbortSignal.timeout(policy.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const signal = init.signal === undefined ? timeout : AbortSignal.any([timeout, init.signal]);
  const maxBytes = policy.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxRedirects = policy.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let target = await vet(url, policy);
  let request = init;
  for (let hop = 0; ; hop += 1) {
    const raw = await send(target, request, signal, maxBytes);
    const location = raw.headers.location;
    if (REDIRECT_STATUSES.has(raw.status) && location !== undefined) {
      if (hop >= maxRedirects) {
        throw new EgressError(
          'too-many-redirects',
          `more than ${maxRedirects} redirects from ${parseUrl(url).host}`,
        );
      }
      const next = await vet(new URL(location, target.url), policy);
      request = redirected(request, raw.status, target.url, next.url);
      target = next;
      continue;
    }
    const body = raw.body;
    return {
      status: raw.status,
      ok: raw.status >= 200 && raw.status < 300,
      url: target.url.toString(),
      headers: toHeaders(raw.headers),
      text: () => Promise.resolve(body.toString('utf8')),
      json: () => Promise.resolve(JSON.parse(body.toString('utf8')) as unknown),
    };
  }
}
