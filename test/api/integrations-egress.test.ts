import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { startIntegrationsApp, type IntegrationsApp } from '../fixtures/provider-integrations-app.js';

let app: IntegrationsApp;
let owner: TestAccount;

beforeAll(async () => {
  app = await startIntegrationsApp({ env: { CLOUDPLANE_EGRESS_ALLOW_PRIVATE: 'false' } });
  owner = await registerAndSignIn(app);
  app.providers.chat.webhooks.add('T5/B5/private');
});
afterAll(async () => app?.close());

describe('with private egress off', () => {
  it.each([
    ['the local chat server', () => app.providers.chat.webhookUrl('T5/B5/private')],
    ['the metadata address', () => 'https://169.254.169.254/latest/meta-data/'],
    ['loopback written in decimal', () => 'https://2130706433/services/x'],
    ['IPv4-mapped loopback', () => 'https://[::ffff:127.0.0.1]/services/x'],
  ])('refuses a chat webhook on %s at a type-specific create, sending nothing', async (_case, url) => {
    const response = await app.call('POST', '/api/v1/integrations/chat', {
      token: owner.token,
      body: { name: 'internal', webhook_url: url(), channels: {} },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/not a public address|http URLs are not allowed/);
    expect(JSON.stringify(body)).toContain('webhook_url');
    expect(app.providers.chat.messages).toEqual([]);
  });

  it('refuses a chat webhook on a private address at a generic create', async () => {
    const response = await app.call('POST', '/api/v1/integrations', {
      token: owner.token,
      body: { name: 'internal', type: 'chat', credentials: { webhook_url: 'https://10.1.2.3/hook' } },
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('credentials.webhook_url');
    const list = await app.call('GET', '/api/v1/integrations', { token: owner.token });
    expect(await list.json()).toEqual([]);
  });
});
