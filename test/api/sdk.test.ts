/**
 * The typed SDK (`cloudplane/sdk`) against the platform: the paths it compiles against are the
 * ones the server answers, and error answers of both body styles become `CloudplaneError`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CloudplaneError,
  createCloudplaneClient,
  dataOf,
  errorOf,
  type CloudplaneClient,
} from '../../sdk/index.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

const PASSWORD = 'correct horse battery staple';

let app: TestPlatform;
let api: CloudplaneClient;

beforeAll(async () => {
  app = await startPlatform();
}, 60_000);
afterAll(async () => app?.close(), 60_000);

/** The error a call rejects with; fails the test when it does not reject. */
async function rejection(call: Promise<unknown>): Promise<CloudplaneError> {
  const error: unknown = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CloudplaneError);
  return error as CloudplaneError;
}

describe('the SDK', () => {
  const email = `sdk-${Date.now()}@example.com`;

  it('registers and signs in, then calls with the session token', async () => {
    const anonymous = createCloudplaneClient({ baseUrl: app.url });
    const registered = dataOf(
      await anonymous.POST('/v1/auth/register', { body: { email, password: PASSWORD, name: 'Ada' } }),
    );
    expect(registered.user.email).toBe(email);

    const session = dataOf(await anonymous.POST('/v1/auth/login', { body: { email, password: PASSWORD } }));
    expect(session.user.id).toBe(registered.user.id);
    api = createCloudplaneClient({ baseUrl: app.url, token: session.token });
  });

  it('creates a VPC and reads it back (a bare answer)', async () => {
    const { data: created } = await api.POST('/api/v1/vpcs', {
      body: { name: 'sdk-vpc', cidr_block: '10.40.0.0/16', region: 'us-east-1' },
    });
    expect(created?.name).toBe('sdk-vpc');

    const { data: read } = await api.GET('/api/v1/vpcs/{id}', { params: { path: { id: created!.id! } } });
    expect(read).toMatchObject({ id: created!.id, cidr_block: '10.40.0.0/16' });
  });

  it('lists databases (an enveloped answer)', async () => {
    const databases = dataOf(await api.GET('/v1/databases'));
    expect(databases).toEqual([]);
  });

  it('throws a 404 as a CloudplaneError with the request id', async () => {
    const error = await rejection(api.GET('/api/v1/vpcs/{id}', { params: { path: { id: randomUUID() } } }));
    expect(error).toMatchObject({ status: 404, code: 'not_found' });
    expect(error.message).not.toBe('');
    expect(error.requestId).toMatch(/\S/);
  });

  it('throws a 422 with the server message and details', async () => {
    const error = await rejection(api.POST('/v1/databases', { body: { name: 'x', engine: 'oracle' } }));
    expect(error.status).toBe(422);
    expect(error.code).toMatch(/\S/);
    expect(error.message).toMatch(/engine must be one of/);
    expect(error.requestId).toMatch(/\S/);
  });

  it('reads the flat error body of the accounts area', async () => {
    const error = await rejection(
      createCloudplaneClient({ baseUrl: app.url }).POST('/v1/auth/login', {
        body: { email, password: 'not the password' },
      }),
    );
    expect(error).toMatchObject({ status: 401, code: 'invalid_credentials' });
    expect(error.requestId).toMatch(/\S/);
  });

  it('sends an API key as X-API-Key', async () => {
    const error = await rejection(
      createCloudplaneClient({ baseUrl: app.url, apiKey: 'cp_not-a-key' }).GET('/api/v1/vpcs'),
    );
    expect(error.status).toBe(401);
  });

  it('names an answer without a JSON body by its status, keeping the request id of the header', async () => {
    const error = await errorOf(
      new Response('upstream down', {
        status: 502,
        statusText: 'Bad Gateway',
        headers: { 'X-Request-Id': 'req-1' },
      }),
    );
    expect(error).toMatchObject({
      status: 502,
      code: 'http_502',
      message: 'Bad Gateway',
      requestId: 'req-1',
    });
  });

  it('types its paths', () => {
    // Never called: the point is that it does not compile.
    // @ts-expect-error: the API serves no such path
    const unserved = () => api.GET('/api/v1/no-such-path');
    expect(unserved).toBeTypeOf('function');
  });
});
