import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enveloped, generalError } from '../fixtures/api-bodies.js';
import { bearerAuthenticator } from '../fixtures/bearer-authenticator.js';
import { startTestApp, type TestApp } from '../fixtures/app-dependencies.js';
import { ECHO_ROUTES } from '../fixtures/echo-routes.js';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ routes: ECHO_ROUTES, authenticator: bearerAuthenticator });
});
afterAll(async () => {
  await app.close();
});

const asWriter = { authorization: 'Bearer writer', 'content-type': 'application/json' };

function post(path: string, body: unknown, headers: Record<string, string> = asWriter): Promise<Response> {
  return app.request(path, { method: 'POST', headers, body: JSON.stringify(body) });
}

describe('style A (stacks and general /v1)', () => {
  it('wraps an object in {data, meta:{request_id}}', async () => {
    const response = await post('/v1/stacks/echoes/first', { message: 'hello', count: 2 });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await response.json();
    expect(body).toEqual({
      data: { name: 'first', message: 'hello', count: 2, caller: 'usr_writer' },
      meta: { request_id: response.headers.get('x-request-id') },
    });
  });

  it('answers a list with total, page and per_page in meta, 20 per page by default', async () => {
    const response = await app.request('/v1/stacks/echoes', { headers: asWriter });
    const body = await enveloped<unknown[]>(response);
    expect(body.data).toHaveLength(20);
    expect(body.meta).toEqual({
      total: 45,
      page: 1,
      per_page: 20,
      request_id: response.headers.get('x-request-id'),
    });
  });

  it('coerces page and per_page from the query string and applies equality filters', async () => {
    const response = await app.request('/v1/stacks/echoes?page=2&per_page=5&status=active', {
      headers: asWriter,
    });
    const body = await enveloped<{ index: number }[]>(response);
    expect(body.meta).toMatchObject({ total: 15, page: 2, per_page: 5 });
    expect(body.data.map((item) => item.index)).toEqual([15, 18, 21, 24, 27]);
  });
});

describe('style B (/api/v1)', () => {
  it('answers a bare object', async () => {
    const response = await app.request('/api/v1/vpcs/echoes/vpc-7');
    expect(await response.json()).toEqual({ id: 'vpc-7' });
  });

  it('answers a bare array, taking limit and offset', async () => {
    const response = await app.request('/api/v1/vpcs/echoes?limit=2&offset=4');
    expect(await response.json()).toEqual([
      { index: 4, status: 'pending' },
      { index: 5, status: 'pending' },
    ]);
  });

  it('answers 204 with no body when the handler returns no data', async () => {
    const response = await app.request('/api/v1/vpcs/echoes/vpc-7', { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
  });

  it('matches a literal segment before a parameter declared earlier', async () => {
    const response = await app.request('/api/v1/vpcs/echoes/latest');
    expect(await response.json()).toEqual({ latest: true });
  });

  it('hands a wildcard parameter over as the path text, slashes included', async () => {
    const response = await app.request('/api/v1/vault/vlt-1/secret/apps/web/db', {
      headers: { authorization: 'Bearer admin' },
    });
    expect(await response.json()).toEqual({ id: 'vlt-1', path: 'apps/web/db' });
  });
});

describe('validation errors', () => {
  it.each([
    {
      name: 'a missing required field',
      body: { count: 1 },
      fields: [{ in: 'body', field: 'message', rule: 'required', message: 'message is required' }],
    },
    {
      name: 'a field of the wrong type',
      body: { message: 'hi', count: 'two' },
      fields: [{ in: 'body', field: 'count', rule: 'type', message: 'count must be integer' }],
    },
    {
      name: 'an unknown field',
      body: { message: 'hi', colour: 'red' },
      fields: [
        {
          in: 'body',
          field: 'colour',
          rule: 'additionalProperties',
          message: 'colour is not an accepted field',
        },
      ],
    },
    {
      name: 'a bad array element',
      body: { message: 'hi', tags: ['ok', 3] },
      fields: [{ in: 'body', field: 'tags[1]', rule: 'type', message: 'tags[1] must be string' }],
    },
  ])('answers 400 invalid_request naming $name', async ({ body, fields }) => {
    const response = await post('/v1/stacks/echoes/first', body);
    expect(response.status).toBe(400);
    const answer = await generalError(response);
    expect(answer.error.code).toBe('invalid_request');
    expect(answer.error.details.fields).toEqual(fields);
    expect(answer.error.message).toContain(fields[0]!.message);
    expect(answer.meta.request_id).toBe(response.headers.get('x-request-id'));
  });

  it('lists every problem of the request, path and body alike', async () => {
    const response = await post('/v1/stacks/echoes/Not_Valid', { count: 0 });
    const answer = await generalError(response);
    expect(answer.error.details.fields?.map((field) => `${field.in}:${field.field}`)).toEqual([
      'params:name',
      'body:message',
      'body:count',
    ]);
  });

  it.each([
    ['/v1/stacks/echoes?per_page=101', 'per_page', 'maximum'],
    ['/v1/stacks/echoes?page=0', 'page', 'minimum'],
    ['/v1/stacks/echoes?page=first', 'page', 'type'],
    ['/v1/stacks/echoes?status=archived', 'status', 'enum'],
  ])('answers 400 for the query %s naming %s', async (path, field, rule) => {
    const response = await app.request(path, { headers: asWriter });
    expect(response.status).toBe(400);
    const answer = await generalError(response);
    expect(answer.error.details.fields).toEqual([expect.objectContaining({ in: 'query', field, rule })]);
  });

  it('treats an absent body as an empty object, so the required fields are named', async () => {
    const response = await app.request('/v1/stacks/echoes/first', { method: 'POST', headers: asWriter });
    expect(response.status).toBe(400);
    expect((await generalError(response)).error.details.fields?.[0]?.field).toBe('message');
  });

  it('answers the accounts area in the flat style, naming the fields in the message', async () => {
    const response = await post(
      '/v1/auth/echo-login',
      { email: 'not-an-email', password: 'short' },
      { 'content-type': 'application/json' },
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'invalid_request',
      message:
        'invalid request: email must match format "email"; password must NOT have fewer than 8 characters',
    });
  });
});

describe('flat errors (accounts)', () => {
  it('answers {error, message} with the handler code and nothing else', async () => {
    const response = await post(
      '/v1/auth/echo-login',
      { email: 'ada@example.com', password: 'wrong password' },
      { 'content-type': 'application/json' },
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: 'invalid_credentials',
      message: 'wrong e-mail or password',
    });
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('wraps accounts successes in style A', async () => {
    const response = await post(
      '/v1/auth/echo-login',
      { email: 'ada@example.com', password: 'correct horse' },
      { 'content-type': 'application/json' },
    );
    expect(await response.json()).toEqual({
      data: { token: 'session-token', email: 'ada@example.com' },
      meta: { request_id: response.headers.get('x-request-id') },
    });
  });
});
