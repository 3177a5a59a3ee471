import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPlatformCluster,
  platformUser,
  platformVaultToken,
  type PlatformCluster,
} from '../fixtures/vault-api-app.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

let app: TestPlatform;
let cluster: PlatformCluster;
let rootToken: string;

beforeAll(async () => {
  app = await startPlatform({ userAgent: 'vault-api-test' });
  const bearer = await platformUser(app);
  cluster = await createPlatformCluster(app, bearer, { name: 'wire', auto_unseal: true });
  rootToken = await platformVaultToken(app, bearer, cluster.id, ['root']);
});
afterAll(async () => app?.close());

const send = (method: string, path: string, body?: string, token = rootToken) =>
  fetch(`${cluster.apiAddress}${path}`, {
    method,
    headers: { 'x-vault-token': token, 'content-type': 'application/json' },
    body,
  });

describe("the Vault API's wire format", () => {
  it.each([
    ['a malformed JSON body', 'POST', '/v1/secret/data/app', '{"data":', 400, ['failed to parse JSON input']],
    [
      'a body that is not an object',
      'POST',
      '/v1/secret/data/app',
      '[1]',
      400,
      ['the request body must be a JSON object'],
    ],
    ['an unknown path', 'GET', '/v1/nothing/here', undefined, 404, []],
    ['a secret never written', 'GET', '/v1/secret/data/missing', undefined, 404, []],
    [
      'a duration that is not one',
      'POST',
      '/v1/auth/token/create',
      '{"ttl":"soon"}',
      400,
      ['ttl must be a duration: whole seconds or a string such as "1h30m"'],
    ],
  ])('answers %s with Vault’s status and errors list', async (_case, method, path, body, status, errors) => {
    const response = await send(method, path, body);
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual({ errors });
  });

  it('answers 413 for a body over the limit', async () => {
    const value = 'x'.repeat(app.config.http.bodyLimitBytes + 1);
    const response = await send('POST', '/v1/secret/data/big', JSON.stringify({ data: { value } }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ errors: ['request body too large'] });
  });
});
