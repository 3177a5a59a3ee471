/**
 * Bad requests every operation refuses the same way, walked from `/openapi.json` so a new route is
 * covered without a new test: a body sent to an operation that takes none (accepted when it carries
 * nothing — empty, `{}` or `null` —, else 400 naming its fields, or 413 past the limit), and a body
 * nesting deeper than the limit (400), each before any work.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../apiserver/middleware/json-body.js';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

let app: TestPlatform;
let owner: TestAccount;

interface Operation {
  method: string;
  template: string;
  path: string;
  takesBody: boolean;
  authenticated: boolean;
}

let operations: Operation[] = [];

beforeAll(async () => {
  app = await startPlatform();
  owner = await registerAndSignIn(app);
  const document = (await (await app.call('GET', '/openapi.json')).json()) as {
    paths: Record<string, Record<string, { requestBody?: unknown; security?: unknown[] }>>;
  };
  operations = Object.entries(document.paths).flatMap(([template, methods]) =>
    Object.entries(methods)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        template,
        path: template.replace(/\{[^}]+\}/g, 'probe'),
        takesBody: operation.requestBody !== undefined,
        authenticated: (operation.security ?? []).length > 0,
      })),
  );
});
afterAll(async () => app?.close());

/** The machine-readable code of an error body, in either error style. */
function codeOf(body: unknown): string | undefined {
  const error = (body as { error?: unknown }).error;
  return typeof error === 'string' ? error : (error as { code?: string } | undefined)?.code;
}

/** The message of an error body, in either error style. */
function messageOf(body: unknown): string {
  const { error, message } = body as { error?: { message?: string }; message?: string };
  return (typeof error === 'object' ? error.message : message) ?? '';
}

/**
 * node:http rather than fetch, which will not send a body with GET. `chunked` sends the body
 * without a length, as streaming clients do, so an empty one is still a body to read.
 */
function send(
  operation: Operation,
  body: string,
  { chunked = false, token = owner.token }: { chunked?: boolean; token?: string } = {},
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${app.url}${operation.path}`,
      {
        method: operation.method,
        headers: {
          'content-type': 'application/json',
          ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': Buffer.byteLength(body) }),
          ...(operation.authenticated ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: keep the text for the failure message
          }
          resolve({ status: response.statusCode ?? 0, body: parsed });
        });
      },
    );
    // The server may answer before reading a body it refuses, and close the connection.
    request.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    request.end(body);
  });
}

function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

describe('every operation of /openapi.json', () => {
  it('walks enough operations to mean something', () => {
    expect(operations.filter((operation) => operation.takesBody).length).toBeGreaterThan(20);
    expect(operations.filter((operation) => !operation.takesBody).length).toBeGreaterThan(20);
  });

  it('refuses a body that carries something where it takes none: 400 unexpected_body naming its fields, 400 invalid_json, 413 past the limit', async () => {
    const refusals: string[] = [];
    for (const operation of operations.filter((entry) => !entry.takesBody)) {
      const small = await send(operation, '{"unexpected":true}');
      if (
        small.status !== 400 ||
        codeOf(small.body) !== 'unexpected_body' ||
        !messageOf(small.body).includes('unexpected')
      ) {
        refusals.push(`${operation.method} ${operation.path}: ${small.status} ${JSON.stringify(small.body)}`);
      }
      for (const other of ['[]', '"text"', '0']) {
        const answer = await send(operation, other);
        if (answer.status !== 400 || codeOf(answer.body) !== 'unexpected_body')
          refusals.push(`${operation.method} ${operation.path} ${other}: ${answer.status}`);
      }
      const malformed = await send(operation, '{"unexpected":');
      if (malformed.status !== 400 || codeOf(malformed.body) !== 'invalid_json')
        refusals.push(`${operation.method} ${operation.path} (malformed): ${malformed.status}`);
      const large = await send(operation, JSON.stringify({ x: 'x'.repeat(app.config.http.bodyLimitBytes) }));
      if (large.status !== 413)
        refusals.push(`${operation.method} ${operation.path} (large): ${large.status}`);
    }
    expect(refusals).toEqual([]);
  });

  it.each([
    ['an empty body', '', false],
    ['an empty body without a length', '', true],
    ['{}', '{}', false],
    ['{} without a length', '{}', true],
    ['null', 'null', false],
    ['{} with spaces', ' { } ', false],
  ])(
    'accepts %s on every POST, PUT and DELETE that takes no body, as it would no body at all',
    async (_case, body, chunked) => {
      const bodiless = operations.filter(
        (operation) => !operation.takesBody && ['POST', 'PUT', 'DELETE'].includes(operation.method),
      );
      expect(bodiless.length).toBeGreaterThan(15);
      const refusals: string[] = [];
      let caller = await registerAndSignIn(app);
      for (const operation of bodiless) {
        let answer = await send(operation, body, { chunked, token: caller.token });
        if (answer.status === 401 && operation.authenticated) {
          // The operation before ended the caller's session (logging out does): sign in anew.
          caller = await registerAndSignIn(app);
          answer = await send(operation, body, { chunked, token: caller.token });
        }
        const code = codeOf(answer.body);
        if (
          answer.status === 401 ||
          answer.status === 413 ||
          answer.status === 415 ||
          answer.status >= 500 ||
          (answer.status === 400 && (code === 'unexpected_body' || code === 'invalid_json'))
        ) {
          refusals.push(
            `${operation.method} ${operation.path}: ${answer.status} ${JSON.stringify(answer.body)}`,
          );
        }
      }
      expect(refusals).toEqual([]);
    },
  );

  it(`refuses a body nesting deeper than ${MAX_JSON_DEPTH} levels with 400 too_deep, never a 5xx`, async () => {
    const refusals: string[] = [];
    for (const operation of operations.filter((entry) => entry.takesBody)) {
      const deep = await send(operation, nested(MAX_JSON_DEPTH + 1));
      if (deep.status !== 400 || codeOf(deep.body) !== 'too_deep') {
        refusals.push(`${operation.method} ${operation.path}: ${deep.status} ${JSON.stringify(deep.body)}`);
      }
      const abyss = await send(operation, nested(50_000));
      if (abyss.status >= 500)
        refusals.push(`${operation.method} ${operation.path} (50,000 levels): ${abyss.status}`);
    }
    expect(refusals).toEqual([]);
  });
});

describe('identifiers and names', () => {
  const withParameters = () => operations.filter((operation) => operation.template.includes('{'));

  it.each([
    ['a NUL', 'a%00b'],
    ['a right-to-left override', 'a%E2%80%AEb'],
    ['too many characters', 'x'.repeat(300)],
  ])('refuse %s in any path parameter with 400 naming it (or 404), never a 5xx', async (_case, value) => {
    const refusals: string[] = [];
    for (const operation of withParameters()) {
      const path = operation.template.replace(/\{[^}]+\}/g, value);
      const answer = await send({ ...operation, path }, operation.takesBody ? '{}' : '');
      if (answer.status !== 400 && answer.status !== 404) {
        refusals.push(
          `${operation.method} ${operation.template}: ${answer.status} ${JSON.stringify(answer.body)}`,
        );
      }
    }
    expect(withParameters().length).toBeGreaterThan(20);
    expect(refusals).toEqual([]);
  });

  it.each([
    ['a NUL in a name', '{"name":"a\\u0000b"}', 'name'],
    ['a bidirectional override in a name', '{"name":"invoice\\u202Efdp.exe"}', 'name'],
    ['a lone surrogate anywhere', '{"description":"\\ud800"}', 'description'],
  ])(
    'refuse %s with 400 invalid_characters naming the field, on every operation taking a body',
    async (_case, body, field) => {
      const refusals: string[] = [];
      for (const operation of operations.filter((entry) => entry.takesBody)) {
        const answer = await send(operation, body);
        if (
          answer.status !== 400 ||
          codeOf(answer.body) !== 'invalid_characters' ||
          !JSON.stringify(answer.body).includes(field)
        ) {
          refusals.push(
            `${operation.method} ${operation.path}: ${answer.status} ${JSON.stringify(answer.body)}`,
          );
        }
      }
      expect(refusals).toEqual([]);
    },
  );

  it('lets a name hold any other valid Unicode', async () => {
    const created = await app.call('POST', '/v1/organizations', {
      token: owner.token,
      body: { name: 'Équipe 🚀 ünïcode' },
    });
    expect(created.status).toBe(201);
  });
});

describe('bad input on every operation', () => {
  /** Objects in the store and rows in the data plane's tables, to see that nothing was written. */
  async function footprint(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const kind of app.store.kinds()) counts[kind.plural] = (await app.store.list(kind, {})).items.length;
    for (const table of [
      'organizations',
      'api_keys',
      'integration_credentials',
      'vault_secret_versions',
      'vpc_cidr_claims',
      'organization_invitations',
    ] as const) {
      const { count } = await app.database.kysely
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      counts[table] = Number(count);
    }
    return counts;
  }

  function hasErrorShape(body: unknown): boolean {
    return codeOf(body) !== undefined && typeof (body as { message?: unknown }).message !== 'undefined'
      ? true
      : typeof (body as { error?: { message?: unknown } }).error?.message === 'string';
  }

  it('answers wrong types, huge numbers, invalid UTF-8 and path traversal with a 4xx in the area error shape, storing nothing', async () => {
    const before = await footprint();
    const bodies = [
      '[]',
      '"a string"',
      '1e400',
      'null',
      '\xff\xfe{"name":"x"}',
      `{"name":${'9'.repeat(400)}}`,
    ];
    const failures: string[] = [];
    for (const operation of operations) {
      const attempts: { path: string; body: string }[] = operation.takesBody
        ? bodies.map((body) => ({ path: operation.path, body }))
        : [];
      if (operation.template.includes('{')) {
        for (const value of ['..%2F..%2Fetc%2Fpasswd', '%2e%2e', '%C0%AF', '%FF%FE']) {
          attempts.push({
            path: operation.template.replace(/\{[^}]+\}/g, value),
            body: operation.takesBody ? '[]' : '',
          });
        }
      }
      for (const attempt of attempts) {
        const answer = await send({ ...operation, path: attempt.path }, attempt.body);
        if (answer.status >= 500 || answer.status < 400 || !hasErrorShape(answer.body)) {
          failures.push(
            `${operation.method} ${attempt.path} ${JSON.stringify(attempt.body).slice(0, 40)}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`,
          );
        }
      }
    }
    expect(failures).toEqual([]);
    expect(await footprint()).toEqual(before);
  });
});
