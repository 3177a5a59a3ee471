import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EgressError,
  checkOutboundUrl,
  safeFetch,
  type EgressPolicy,
  type ResolvedAddress,
} from '../../security/egress.js';

/** Names the tests resolve without DNS: what a hostile or a broken zone could answer. */
const ZONE: Record<string, ResolvedAddress[]> = {
  'metadata.example': [{ address: '169.254.169.254', family: 4 }],
  'intranet.example': [{ address: '10.1.2.3', family: 4 }],
  'mixed.example': [
    { address: '93.184.215.14', family: 4 },
    { address: '192.168.1.10', family: 4 },
  ],
  'mapped.example': [{ address: '::ffff:10.0.0.1', family: 6 }],
  'public.example': [{ address: '93.184.215.14', family: 4 }],
  'provider.test': [{ address: '127.0.0.1', family: 4 }],
};

function zoneResolve(hostname: string): Promise<ResolvedAddress[]> {
  const answer = ZONE[hostname];
  return answer ? Promise.resolve(answer) : Promise.reject(new Error(`NXDOMAIN ${hostname}`));
}

const strict: EgressPolicy = { allowPrivate: false, resolve: zoneResolve };

async function refusal(promise: Promise<unknown>): Promise<EgressError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof EgressError)) throw new Error(`expected an EgressError, got ${String(error)}`);
  return error;
}

describe('checkOutboundUrl with private egress off', () => {
  it.each([
    ['loopback', 'https://127.0.0.1/hook'],
    ['another loopback address', 'https://127.8.9.10/'],
    ['the unspecified address', 'https://0.0.0.0/'],
    ['the unspecified address in short form', 'https://0/'],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data/'],
    ['a 10/8 address', 'https://10.0.0.5/'],
    ['a 172.16/12 address', 'https://172.20.1.1/'],
    ['a 192.168/16 address', 'https://192.168.0.1/'],
    ['a carrier-grade NAT address', 'https://100.64.0.1/'],
    ['a multicast address', 'https://224.0.0.1/'],
    ['a reserved address', 'https://240.0.0.1/'],
    ['loopback written in decimal', 'https://2130706433/'],
    ['loopback written in octal', 'https://0177.0.0.1/'],
    ['loopback written in hex', 'https://0x7f.1/'],
    ['loopback in short form', 'https://127.1/'],
    ['IPv6 loopback', 'https://[::1]/'],
    ['the IPv6 unspecified address', 'https://[::]/'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/'],
    ['an IPv6 unique-local address', 'https://[fd12:3456::1]/'],
    ['an IPv6 link-local address', 'https://[fe80::1]/'],
    ['a name resolving to the metadata address', 'https://metadata.example/'],
    ['a name resolving to a private address', 'https://intranet.example/'],
    ['a name with one private address among public ones', 'https://mixed.example/'],
    ['a name resolving to an IPv4-mapped private address', 'https://mapped.example/'],
  ])('refuses %s (%s)', async (_case, url) => {
    const error = await refusal(checkOutboundUrl(url, strict));
    expect(error.reason).toBe('private-address');
    expect(error.message).toMatch(/not a public address/);
  });

  it.each([
    ['localhost with a trailing dot', 'https://localhost./'],
    ['a name under .internal', 'https://api.internal/'],
    ['the GCP metadata name', 'https://metadata.google.internal/computeMetadata/v1/'],
    ['the bare metadata name', 'https://metadata/'],
    ['the AWS instance-data name', 'https://instance-data/latest/'],
    ['a name under .localhost', 'https://app.localhost/'],
    ['a name under .cluster.local', 'https://kubernetes.default.svc.cluster.local/'],
    ['a name without a domain', 'https://intranet/'],
  ])('refuses %s by its name, before any lookup (%s)', async (_case, url) => {
    const lookups: string[] = [];
    const error = await refusal(
      checkOutboundUrl(url, {
        allowPrivate: false,
        resolve: async (hostname) => {
          lookups.push(hostname);
          return [{ address: '93.184.216.34', family: 4 }];
        },
      }),
    );
    expect(error.reason).toBe('private-address');
    expect(error.message).toMatch(/is not a public host/);
    expect(lookups).toEqual([]);
  });

  it('refuses localhost as the system resolver answers it', async () => {
    const error = await refusal(checkOutboundUrl('https://localhost/', { allowPrivate: false }));
    expect(error.reason).toBe('private-address');
  });

  it.each([
    ['plain http', 'http://public.example/', 'scheme'],
    ['a non-http scheme', 'file:///etc/passwd', 'scheme'],
    ['gopher', 'gopher://public.example/', 'scheme'],
    ['user information', 'https://user:pass@public.example/', 'invalid-url'],
    ['a relative URL', '/hooks/1', 'invalid-url'],
    ['a name that does not resolve', 'https://nowhere.example/', 'unresolvable'],
  ])('refuses %s', async (_case, url, reason) => {
    expect((await refusal(checkOutboundUrl(url, strict))).reason).toBe(reason);
  });

  it('accepts https to a public address', async () => {
    const url = await checkOutboundUrl('https://public.example/hooks?x=1', strict);
    expect(url.toString()).toBe('https://public.example/hooks?x=1');
  });

  it('accepts loopback and http when private egress is allowed', async () => {
    const url = await checkOutboundUrl('http://127.0.0.1:8080/', { allowPrivate: true });
    expect(url.host).toBe('127.0.0.1:8080');
  });
});

describe('safeFetch', () => {
  let server: http.Server;
  let port = 0;
  const seen: { path: string; host: string | undefined; authorization: string | undefined }[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ path: req.url ?? '', host: req.headers.host, authorization: req.headers.authorization });
      const path = req.url ?? '/';
      if (path === '/to-metadata') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else if (path === '/to-intranet-name') {
        res.writeHead(301, { location: 'https://intranet.example/' }).end();
      } else if (path.startsWith('/loop/')) {
        const hop = Number(path.slice('/loop/'.length));
        res.writeHead(307, { location: `/loop/${hop + 1}` }).end();
      } else if (path === '/hop') {
        res.writeHead(303, { location: '/landing' }).end();
      } else if (path === '/large') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(4096));
      } else if (path === '/silent') {
        res.writeHead(200);
        res.write('partial');
      } else {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ path, method: req.method }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Reaches the local server only through the vouched-for loopback address; everything else stays strict. */
  const vouched = (): EgressPolicy => ({ ...strict, trustedAddresses: ['127.0.0.1'], timeoutMs: 2000 });

  it('connects to the vetted address while sending the original host name', async () => {
    const response = await safeFetch(`http://provider.test:${port}/pinned`, {}, vouched());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ path: '/pinned', method: 'GET' });
    expect(seen.at(-1)?.host).toBe(`provider.test:${port}`);
  });

  it('refuses a redirect from an allowed server to the metadata address', async () => {
    const error = await refusal(safeFetch(`http://provider.test:${port}/to-metadata`, {}, vouched()));
    expect(error.reason).toBe('private-address');
    expect(error.message).toContain('169.254.169.254');
  });

  it('refuses a redirect to a name that resolves to a private address', async () => {
    const error = await refusal(safeFetch(`http://provider.test:${port}/to-intranet-name`, {}, vouched()));
    expect(error.reason).toBe('private-address');
    expect(error.message).toContain('intranet.example');
  });

  it('follows at most three redirects', async () => {
    const error = await refusal(safeFetch(`http://provider.test:${port}/loop/0`, {}, vouched()));
    expect(error.reason).toBe('too-many-redirects');
    expect(
      seen.filter((request) => request.path.startsWith('/loop/')).map((request) => request.path),
    ).toEqual(['/loop/0', '/loop/1', '/loop/2', '/loop/3']);
  });

  it('turns a POST answered with 303 into a GET of the new location', async () => {
    const response = await safeFetch(
      `http://provider.test:${port}/hop`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
      vouched(),
    );
    expect(await response.json()).toEqual({ path: '/landing', method: 'GET' });
    expect(response.url).toBe(`http://provider.test:${port}/landing`);
  });

  it('aborts a response larger than the limit', async () => {
    const error = await refusal(
      safeFetch(`http://provider.test:${port}/large`, {}, { ...vouched(), maxResponseBytes: 1024 }),
    );
    expect(error.reason).toBe('response-too-large');
  });

  it('gives up on a server that stops answering', async () => {
    const error = await refusal(
      safeFetch(`http://provider.test:${port}/silent`, {}, { ...vouched(), timeoutMs: 200 }),
    );
    expect(error.reason).toBe('timeout');
  });

  it('refuses the loopback server itself when nothing vouches for it', async () => {
    const error = await refusal(safeFetch(`http://provider.test:${port}/pinned`, {}, strict));
    expect(error.reason).toBe('private-address');
    expect(seen.filter((request) => request.path === '/pinned')).toHaveLength(1);
  });

  it('reaches loopback over http when private egress is allowed', async () => {
    const response = await safeFetch(`http://127.0.0.1:${port}/open`, {}, { allowPrivate: true });
    expect(response.ok).toBe(true);
  });
});
