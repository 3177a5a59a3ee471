/**
 * An integration provider is one module registered in the provider list: a provider registered
 * here, in the test alone, gets its own create route, is taken by the generic create and the
 * list's type filter, written as an Integration object the CRD's schema accepts, and connected by
 * the controller through its own verification.
 */
import { expect, it } from 'vitest';
import { registerProvider } from '../../integrations/providers/index.js';
import {
  createRequestOf,
  ProviderError,
  type ProviderAdapter,
} from '../../integrations/providers/provider.js';

declare module '../../crds/integration.js' {
  interface IntegrationTypes {
    lantern: true;
  }
}

const PASSWORD = 'open sesame';
const COLORS = ['green', 'amber'];

function verify(credentials: Record<string, string>) {
  if (credentials.password !== PASSWORD) {
    return Promise.reject(new ProviderError('rejected', 'lantern refused the password'));
  }
  return Promise.resolve({ accountKey: `lantern:${credentials.account ?? 'main'}`, configuration: {} });
}

const lanternProvider: ProviderAdapter = {
  type: 'lantern',
  settings: {
    configuration: {
      color: (value, field) =>
        COLORS.includes(value as string) ? undefined : `${field} must be one of ${COLORS.join(', ')}`,
    },
    requiredConfiguration: ['color'],
    credentials: { required: ['password'], optional: ['account'] },
  },
  verify,
  test: async () => ({ connection: 'ok', authentication: 'ok', permissions: 'ok', errors: [] }),
  create: {
    summary: 'Connect a lantern',
    required: ['password', 'color'],
    fields: { password: { type: 'string' }, account: { type: 'string' }, color: { type: 'string' } },
    request: (body) => createRequestOf(body, ['color'], ['password', 'account']),
    answerFields: { color: { type: 'string' } },
  },
};

// Before the platform's modules load: route schemas are built from the list then.
registerProvider(lanternProvider);
const { useSignedInPlatform } = await import('../fixtures/signed-in-platform.js');
const { eventually } = await import('../fixtures/eventually.js');

type Json = Record<string, unknown>;
const call = useSignedInPlatform();
/** A create through the provider's own route. */
const connectLantern = (body: Json) => call('POST', '/api/v1/integrations/lantern', body);
const errorOf = (answer: { body: Json }) =>
  answer.body.error as { code: string; message: string; details?: Json };

it('creates one through its own route, connected, and lists it under its type', async () => {
  const created = await connectLantern({
    name: 'porch',
    password: PASSWORD,
    color: 'green',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body).toMatchObject({ name: 'porch', type: 'lantern', status: 'connected', color: 'green' });
  const listed = await call('GET', '/api/v1/integrations?type=lantern');
  expect(listed.status).toBe(200);
  expect((listed.body as unknown as Json[]).map((row) => row.name)).toEqual(['porch']);
});

it('refuses through its route what its settings and its verification refuse', async () => {
  const color = await connectLantern({
    name: 'attic',
    password: PASSWORD,
    color: 'purple',
  });
  expect(color.status).toBe(422);
  expect(errorOf(color).message).toMatch(/color must be one of green, amber/);
  const password = await connectLantern({
    name: 'attic',
    password: 'wrong',
    color: 'amber',
  });
  expect(password.status).toBe(400);
  expect(JSON.stringify(errorOf(password).details)).toMatch(/password/);
  const field = await connectLantern({ name: 'attic', color: 'amber' });
  expect(field.status).toBe(400);
});

it('is a type of the generic create, which the controller connects through its verification', async () => {
  const created = await call('POST', '/api/v1/integrations', {
    name: 'garden',
    type: 'lantern',
    credentials: { password: PASSWORD, account: 'garden' },
    configuration: { color: 'amber' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  await eventually(async () =>
    expect((await call('GET', `/api/v1/integrations/${id}`)).body.status).toBe('connected'),
  );
  const unknown = await call('POST', '/api/v1/integrations', {
    name: 'cellar',
    type: 'candle',
    credentials: { password: PASSWORD },
  });
  expect(unknown.status).toBe(422);
  expect(errorOf(unknown).message).toMatch(/use codehost, edgenet, monitor, pager, chat, lantern/);
});
