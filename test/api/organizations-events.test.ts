import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailedToken, registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import { startIntegrationEventsApp, type IntegrationEventsApp } from '../fixtures/event-receiver-app.js';

let app: IntegrationEventsApp;

beforeAll(async () => {
  app = await startIntegrationEventsApp();
});
afterAll(async () => app?.close());

async function verified(name: string): Promise<TestAccount> {
  const account = await registerAndSignIn(app, name);
  const response = await app.call('POST', '/v1/auth/verify-email', {
    body: { token: mailedToken(app, account.email, 'verify-email') },
  });
  expect(response.status).toBe(200);
  return account;
}

describe('membership events', () => {
  it('go to the integrations of the organization: a member added, a member removed', async () => {
    const owner = await verified('Event Owner');
    const organizationId = await app.organizationOf(owner);
    const chat = await app.addIntegration(
      organizationId,
      { type: 'chat', name: 'team chat', configuration: { channels: { logs: '#l', alerts: '#a' } } },
      { webhook_url: 'http://127.0.0.1:9/hook' },
    );
    const teammate = await verified('Event Teammate');
    await app.call('POST', `/v1/organizations/${organizationId}/invitations`, {
      token: owner.token,
      body: { email: teammate.email, role: 'member' },
    });
    const token = mailedToken(app, teammate.email, 'accept-invitation');
    expect(
      (await app.call('POST', `/v1/invitations/${token}/accept`, { token: teammate.token })).status,
    ).toBe(200);
    const removed = await app.call('DELETE', `/v1/organizations/${organizationId}/members/${teammate.id}`, {
      token: owner.token,
    });
    expect(removed.status).toBe(204);
    const rows = await app.database.kysely
      .selectFrom('integration_events')
      .select(['event_type', 'subject', 'integration_id', 'payload'])
      .where('organization_id', '=', organizationId)
      .where('event_type', 'like', 'organization.%')
      .orderBy('created_at')
      .execute();
    expect(rows.map((row) => [row.event_type, row.subject, row.integration_id])).toEqual([
      ['organization.member_added', teammate.id, chat],
      ['organization.member_removed', teammate.id, chat],
    ]);
    expect(JSON.parse(rows[1]!.payload)).toEqual({ user_id: teammate.id, removed_by: owner.id });
  });
});
