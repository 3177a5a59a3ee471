import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVITATIONS_PER_HOUR } from '../../accounts/invitations.js';
import { NAMESPACE_KIND } from '../../control-plane/built-in-kinds.js';
import { VERIFICATION_MAILS_PER_HOUR } from '../../accounts/registration.js';
import {
  mailedToken,
  mailedTokens,
  registerAndSignIn,
  signIn,
  type TestAccount,
} from '../fixtures/accounts-app.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

let app: TestPlatform;

beforeAll(async () => {
  app = await startPlatform();
});
afterAll(async () => app?.close());

type Json = Record<string, unknown>;

async function call(method: string, path: string, token: string | undefined, body?: unknown) {
  const response = await app.call(method, path, { token, body });
  const text = await response.text();
  return {
    status: response.status,
    body: (text ? JSON.parse(text) : undefined) as Json & { data?: unknown },
  };
}

const data = <T = Json>(response: { body: { data?: unknown } }) => response.body.data as T;

/** A signed-up user with a verified address, and the id of their own organization. */
async function verifiedUser(name: string): Promise<TestAccount & { organizationId: string }> {
  const account = await registerAndSignIn(app, name);
  const verified = await call('POST', '/v1/auth/verify-email', undefined, {
    token: mailedToken(app, account.email, 'verify-email'),
  });
  expect(verified.status).toBe(200);
  const organizations = data<{ id: string }[]>(await call('GET', '/v1/organizations', account.token));
  return { ...account, organizationId: organizations[0]!.id };
}

async function inviteAndAccept(
  owner: TestAccount & { organizationId: string },
  invitee: TestAccount,
  role: string,
) {
  const invited = await call('POST', `/v1/organizations/${owner.organizationId}/invitations`, owner.token, {
    email: invitee.email,
    role,
  });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  const accepted = await call(
    'POST',
    `/v1/invitations/${mailedToken(app, invitee.email, 'accept-invitation')}/accept`,
    invitee.token,
  );
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  return accepted;
}

const switchTo = (account: TestAccount, organizationId: string) =>
  call('PATCH', '/v1/auth/me', account.token, { current_organization_id: organizationId });

describe('a team, over HTTP', () => {
  it('invites by e-mail, lets the invitee see the team VPC, demotes, removes with access ending at once', async () => {
    const owner = await verifiedUser('Grace Hopper');
    const teammate = await verifiedUser('Katherine Johnson');
    const vpc = await call('POST', '/api/v1/vpcs', owner.token, {
      name: 'shared',
      cidr_block: '10.40.0.0/16',
      region: 'us-east-1',
    });
    expect(vpc.status).toBe(201);
    const vpcId = (vpc.body as { id: string }).id;

    const pending = await call('POST', `/v1/organizations/${owner.organizationId}/invitations`, owner.token, {
      email: teammate.email.toUpperCase(),
      role: 'member',
    });
    expect(pending.status).toBe(201);
    expect(data(pending)).toMatchObject({ email: teammate.email, role: 'member', invited_by: owner.id });
    expect(JSON.stringify(pending.body)).not.toContain('cpinv_');
    const listed = data<Json[]>(
      await call('GET', `/v1/organizations/${owner.organizationId}/invitations`, owner.token),
    );
    expect(listed.map((entry) => entry.email)).toEqual([teammate.email]);

    const token = mailedToken(app, teammate.email, 'accept-invitation');
    const accepted = await call('POST', `/v1/invitations/${token}/accept`, teammate.token);
    expect(accepted.status).toBe(200);
    expect(data(accepted)).toMatchObject({ id: owner.organizationId, role: 'member' });
    expect((await call('POST', `/v1/invitations/${token}/accept`, teammate.token)).body).toMatchObject({
      error: 'invitation_used',
    });

    expect((await switchTo(teammate, owner.organizationId)).status).toBe(200);
    expect((await call('GET', `/api/v1/vpcs/${vpcId}`, teammate.token)).status).toBe(200);
    const members = data<Json[]>(
      await call('GET', `/v1/organizations/${owner.organizationId}/members`, teammate.token),
    );
    expect(members.map((member) => [member.email, member.role])).toEqual([
      [owner.email, 'owner'],
      [teammate.email, 'member'],
    ]);

    const demoted = await call(
      'PATCH',
      `/v1/organizations/${owner.organizationId}/members/${teammate.id}`,
      owner.token,
      { role: 'viewer' },
    );
    expect(data(demoted)).toMatchObject({ user_id: teammate.id, role: 'viewer' });
    const refused = await call('POST', '/api/v1/vpcs', teammate.token, {
      name: 'mine',
      cidr_block: '10.41.0.0/16',
      region: 'us-east-1',
    });
    expect(refused.status).toBe(403);
    expect((await call('GET', `/api/v1/vpcs/${vpcId}`, teammate.token)).status).toBe(200);

    const removed = await call(
      'DELETE',
      `/v1/organizations/${owner.organizationId}/members/${teammate.id}`,
      owner.token,
    );
    expect(removed.status).toBe(204);
    expect((await call('GET', `/api/v1/vpcs/${vpcId}`, teammate.token)).status).toBe(404);
    const me = data<{ current_organization_id: string }>(await call('GET', '/v1/auth/me', teammate.token));
    expect(me.current_organization_id).toBe(teammate.organizationId);

    const audit = data<Json[]>(
      await call('GET', `/v1/organizations/${owner.organizationId}/audit`, owner.token),
    );
    expect(audit.map((entry) => entry.action)).toEqual([
      'member_removed',
      'role_changed',
      'member_added',
      'invitation_sent',
    ]);
    expect(audit[1]).toMatchObject({
      actor_id: owner.id,
      subject: teammate.id,
      details: { from: 'member', to: 'viewer' },
    });
  });

  it('revokes a removed member API key for the organization at once', async () => {
    const owner = await verifiedUser('Ada Owner');
    const member = await verifiedUser('Bo Member');
    await inviteAndAccept(owner, member, 'member');
    await switchTo(member, owner.organizationId);
    const created = await call('POST', '/v1/auth/api-keys', member.token, {
      name: 'ci',
      scopes: ['vpc:read'],
    });
    expect(created.status).toBe(201);
    const key = data<{ key: string }>(created).key;
    const withKey = () => app.call('GET', '/api/v1/vpcs', { headers: { 'x-api-key': key } });
    expect((await withKey()).status).toBe(200);
    await call('DELETE', `/v1/organizations/${owner.organizationId}/members/${member.id}`, owner.token);
    expect((await withKey()).status).toBe(401);
  });
});

describe('the rules of a team', () => {
  it('keeps at least one owner: demoting or removing the last one, or leaving as it, is a 409', async () => {
    const owner = await verifiedUser('Solo Owner');
    const org = owner.organizationId;
    const demote = await call('PATCH', `/v1/organizations/${org}/members/${owner.id}`, owner.token, {
      role: 'admin',
    });
    expect(demote.status).toBe(409);
    expect(demote.body).toMatchObject({ error: 'last_owner' });
    expect((await call('DELETE', `/v1/organizations/${org}/members/${owner.id}`, owner.token)).status).toBe(
      409,
    );

    const second = await verifiedUser('Second Owner');
    await inviteAndAccept(owner, second, 'owner');
    expect(
      (await call('PATCH', `/v1/organizations/${org}/members/${owner.id}`, owner.token, { role: 'admin' }))
        .status,
    ).toBe(200);
    const last = await call('DELETE', `/v1/organizations/${org}/members/${second.id}`, owner.token);
    expect(last.status).toBe(403);
    expect((await call('DELETE', `/v1/organizations/${org}/members/${second.id}`, second.token)).status).toBe(
      409,
    );
  });

  it('lets a member leave, and refuses members what only owners and admins may do', async () => {
    const owner = await verifiedUser('Team Owner');
    const member = await verifiedUser('Plain Member');
    const admin = await verifiedUser('An Admin');
    await inviteAndAccept(owner, member, 'member');
    await inviteAndAccept(owner, admin, 'admin');
    const org = owner.organizationId;

    const byMember = await call('POST', `/v1/organizations/${org}/invitations`, member.token, {
      email: 'someone@example.com',
      role: 'viewer',
    });
    expect(byMember.status).toBe(403);
    expect((await call('GET', `/v1/organizations/${org}/invitations`, member.token)).status).toBe(403);
    expect((await call('GET', `/v1/organizations/${org}/audit`, member.token)).status).toBe(403);
    expect((await call('GET', `/v1/organizations/${org}/audit`, admin.token)).status).toBe(403);
    expect(
      (await call('PATCH', `/v1/organizations/${org}/members/${owner.id}`, member.token, { role: 'viewer' }))
        .status,
    ).toBe(403);
    const ownerByAdmin = await call('POST', `/v1/organizations/${org}/invitations`, admin.token, {
      email: 'boss@example.com',
      role: 'owner',
    });
    expect(ownerByAdmin.status).toBe(403);
    expect(
      (await call('PATCH', `/v1/organizations/${org}/members/${owner.id}`, admin.token, { role: 'member' }))
        .status,
    ).toBe(403);
    expect(
      (await call('PATCH', `/v1/organizations/${org}/members/${member.id}`, admin.token, { role: 'viewer' }))
        .status,
    ).toBe(200);

    expect((await call('DELETE', `/v1/organizations/${org}/members/${member.id}`, member.token)).status).toBe(
      204,
    );
    const mine = data<{ id: string }[]>(await call('GET', '/v1/organizations', member.token));
    expect(mine.map((entry) => entry.id)).toEqual([member.organizationId]);
  });

  it('answers 404 for an organization the caller does not belong to, and 400 for a malformed role', async () => {
    const owner = await verifiedUser('Owner One');
    const stranger = await verifiedUser('Stranger');
    const org = owner.organizationId;
    expect((await call('GET', `/v1/organizations/${org}/members`, stranger.token)).status).toBe(404);
    expect(
      (
        await call('POST', `/v1/organizations/${org}/invitations`, stranger.token, {
          email: 'x@example.com',
          role: 'member',
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call('POST', `/v1/organizations/${org}/invitations`, owner.token, {
          email: 'x@example.com',
          role: 'root',
        })
      ).status,
    ).toBe(400);
    expect((await call('GET', `/v1/organizations/not-an-org/members`, owner.token)).status).toBe(404);
  });

  it('answers every organization route alike, 404, for another organization and for made-up ids', async () => {
    const owner = await verifiedUser('Owner Elsewhere');
    const stranger = await verifiedUser('Prober');
    const document = (await (await app.call('GET', '/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    /** A body each operation accepts, so that only the organization decides the answer. */
    const bodies: Record<string, unknown> = {
      'PATCH /v1/organizations/{id}/members/{user_id}': { role: 'member' },
      'POST /v1/organizations/{id}/invitations': { email: 'someone@example.com', role: 'member' },
      'DELETE /v1/organizations/{id}': { name: 'Owner Elsewhere' },
    };
    const operations = Object.entries(document.paths)
      .filter(([template]) => template.startsWith('/v1/organizations/{id}'))
      .flatMap(([template, methods]) =>
        Object.keys(methods)
          .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
          .map((method) => `${method.toUpperCase()} ${template}`),
      );
    expect(operations.length).toBeGreaterThanOrEqual(8);
    const answers: string[] = [];
    for (const operation of operations) {
      const [method, template] = operation.split(' ') as [string, string];
      for (const id of [owner.organizationId, 'org_aaaaaaaaaaaaaaaa', 'org_0', 'not-an-org']) {
        const path = template
          .replace('{id}', id)
          .replace('{user_id}', owner.id)
          .replace('{invitation_id}', 'inv_aaaaaaaaaaaaaaaa');
        const answer = await call(method, path, stranger.token, bodies[operation]);
        answers.push(`${operation} ${id === owner.organizationId ? 'another' : id}: ${answer.status}`);
      }
    }
    expect(answers.filter((answer) => !answer.endsWith(': 404'))).toEqual([]);
  });
});

describe('invitations', () => {
  it('refuses an address already a member (409), another address (403), an unverified one (403)', async () => {
    const owner = await verifiedUser('Inviting Owner');
    const member = await verifiedUser('Existing Member');
    await inviteAndAccept(owner, member, 'member');
    const again = await call('POST', `/v1/organizations/${owner.organizationId}/invitations`, owner.token, {
      email: member.email,
      role: 'admin',
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'already_member' });

    const intended = await verifiedUser('Intended');
    const other = await verifiedUser('Other Person');
    await call('POST', `/v1/organizations/${owner.organizationId}/invitations`, owner.token, {
      email: intended.email,
      role: 'member',
    });
    const token = mailedToken(app, intended.email, 'accept-invitation');
    const wrong = await call('POST', `/v1/invitations/${token}/accept`, other.token);
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ error: 'invitation_for_another_address' });

    const unverified = await registerAndSignIn(app, 'Not Verified');
    await call('POST', `/v1/organizations/${owner.organizationId}/invitations`, owner.token, {
      email: unverified.email,
      role: 'member',
    });
    const refused = await call(
      'POST',
      `/v1/invitations/${mailedToken(app, unverified.email, 'accept-invitation')}/accept`,
      unverified.token,
    );
    expect(refused.body).toMatchObject({ error: 'email_not_verified' });
  });

  it('replaces a pending invitation when the address is invited again, and revokes one on DELETE (410 after)', async () => {
    const owner = await verifiedUser('Re Inviter');
    const invitee = await verifiedUser('Re Invitee');
    const path = `/v1/organizations/${owner.organizationId}/invitations`;
    await call('POST', path, owner.token, { email: invitee.email, role: 'viewer' });
    const first = mailedToken(app, invitee.email, 'accept-invitation');
    const second = data<{ id: string }>(
      await call('POST', path, owner.token, { email: invitee.email, role: 'member' }),
    );
    expect(data<Json[]>(await call('GET', path, owner.token)).map((entry) => entry.id)).toEqual([second.id]);
    expect((await call('POST', `/v1/invitations/${first}/accept`, invitee.token)).body).toMatchObject({
      error: 'invitation_revoked',
    });
    expect((await call('DELETE', `${path}/${second.id}`, owner.token)).status).toBe(204);
    const latest = mailedTokens(app, invitee.email, 'accept-invitation').find((token) => token !== first)!;
    const gone = await call('POST', `/v1/invitations/${latest}/accept`, invitee.token);
    expect(gone.status).toBe(410);
    expect((await call('DELETE', `${path}/${second.id}`, owner.token)).status).toBe(404);
  });

  it('expires after a week with a 410', async () => {
    const owner = await verifiedUser('Slow Owner');
    const invitee = await verifiedUser('Slow Invitee');
    await call('POST', `/v1/organizations/${owner.organizationId}/invitations`, owner.token, {
      email: invitee.email,
      role: 'member',
    });
    const token = mailedToken(app, invitee.email, 'accept-invitation');
    await app.clock.advance(8 * 24 * 60 * 60 * 1000);
    const { token: inviteeToken } = await signIn(app, invitee.email, invitee.password);
    const expired = await call('POST', `/v1/invitations/${token}/accept`, inviteeToken);
    expect(expired.status).toBe(410);
    expect(expired.body).toMatchObject({ error: 'invitation_expired' });
  });

  it(`limits an organization to ${INVITATIONS_PER_HOUR} invitations an hour with a 429`, async () => {
    const owner = await verifiedUser('Busy Owner');
    const path = `/v1/organizations/${owner.organizationId}/invitations`;
    for (let index = 0; index < INVITATIONS_PER_HOUR; index += 1) {
      expect(
        (await call('POST', path, owner.token, { email: `guest${index}@example.com`, role: 'viewer' }))
          .status,
      ).toBe(201);
    }
    const over = await call('POST', path, owner.token, { email: 'one-too-many@example.com', role: 'viewer' });
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ error: 'rate_limited', retry_after: expect.any(Number) });
  });
});

describe('POST /v1/auth/resend-verification', () => {
  it('answers the same for any address and mails a fresh link only to an unverified account, within its budget', async () => {
    const waiting = await registerAndSignIn(app, 'Waiting Verifier');
    const verified = await verifiedUser('Already Verified');
    const unknown = await call('POST', '/v1/auth/resend-verification', undefined, {
      email: 'nobody@example.com',
    });
    const resent = await call('POST', '/v1/auth/resend-verification', undefined, { email: waiting.email });
    const done = await call('POST', '/v1/auth/resend-verification', undefined, { email: verified.email });
    expect([unknown, resent, done].map((response) => [response.status, data(response)])).toEqual([
      [202, data(unknown)],
      [202, data(unknown)],
      [202, data(unknown)],
    ]);
    await eventually(() => expect(mailedTokens(app, waiting.email, 'verify-email')).toHaveLength(2));
    expect(mailedTokens(app, verified.email, 'verify-email')).toHaveLength(1);
    for (let index = 0; index < VERIFICATION_MAILS_PER_HOUR; index += 1) {
      await call('POST', '/v1/auth/resend-verification', undefined, { email: waiting.email });
    }
    await eventually(() =>
      expect(mailedTokens(app, waiting.email, 'verify-email')).toHaveLength(VERIFICATION_MAILS_PER_HOUR),
    );
    // The budget is spent: nothing more leaves, whatever the caller is told.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(mailedTokens(app, waiting.email, 'verify-email')).toHaveLength(VERIFICATION_MAILS_PER_HOUR);
    const newest = mailedToken(app, waiting.email, 'verify-email');
    expect((await call('POST', '/v1/auth/verify-email', undefined, { token: newest })).status).toBe(200);
  });
});

describe('DELETE /v1/organizations/:id', () => {
  it('refuses without the name, lists what is left without cascade, and with cascade deletes everything', async () => {
    const owner = await verifiedUser('Closing Owner');
    const member = await verifiedUser('Last Member');
    await inviteAndAccept(owner, member, 'member');
    await switchTo(member, owner.organizationId);
    const org = owner.organizationId;
    const namespace = `org-${org.slice(4)}`;
    const vpc = await call('POST', '/api/v1/vpcs', owner.token, {
      name: 'doomed',
      cidr_block: '10.50.0.0/16',
      region: 'us-east-1',
    });
    const vpcId = (vpc.body as { id: string }).id;
    await eventually(async () =>
      expect(
        ((await call('GET', `/api/v1/vpcs/${vpcId}`, owner.token)).body as { status: string }).status,
      ).toBe('available'),
    );

    const byMember = await call('DELETE', `/v1/organizations/${org}`, member.token, {
      name: 'Closing Owner',
    });
    expect(byMember.status).toBe(403);
    const { name } = data<{ name: string }[]>(await call('GET', '/v1/organizations', owner.token)).find(
      (entry) => (entry as unknown as { id: string }).id === org,
    )!;
    const mismatch = await call('DELETE', `/v1/organizations/${org}`, owner.token, {
      name: 'something else',
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toMatchObject({ error: 'confirmation_mismatch' });
    const notEmpty = await call('DELETE', `/v1/organizations/${org}`, owner.token, { name });
    expect(notEmpty.status).toBe(409);
    expect(notEmpty.body).toMatchObject({
      error: 'organization_not_empty',
      resources: expect.arrayContaining([{ kind: 'Vpc', name: vpcId }]),
    });

    const deleting = await call('DELETE', `/v1/organizations/${org}?cascade=true`, owner.token, { name });
    expect(deleting.status).toBe(202);
    expect(data(deleting)).toMatchObject({ id: org, status: 'deleting' });

    await eventually(async () => {
      const organizations = await app.database.kysely
        .selectFrom('organizations')
        .select('id')
        .where('id', '=', org)
        .execute();
      expect(organizations).toEqual([]);
    }, 30_000);
    for (const kind of app.store.kinds()) {
      if (!kind.namespaced) continue;
      expect((await app.store.list(kind, { namespace })).items).toEqual([]);
    }
    const namespaces = await app.store.list(NAMESPACE_KIND, {});
    expect(namespaces.items.map((item) => item.metadata.name)).not.toContain(namespace);
    for (const table of ['vpc_tombstones', 'vpc_cidr_claims'] as const) {
      expect(
        await app.database.kysely.selectFrom(table).selectAll().where('namespace', '=', namespace).execute(),
      ).toEqual([]);
    }
    expect(
      await app.database.kysely
        .selectFrom('organization_audit')
        .selectAll()
        .where('organization_id', '=', org)
        .execute(),
    ).toEqual([]);

    for (const account of [owner, member]) {
      const mine = data<{ id: string }[]>(await call('GET', '/v1/organizations', account.token));
      expect(mine.map((entry) => entry.id)).not.toContain(org);
      const me = data<{ current_organization_id: string }>(await call('GET', '/v1/auth/me', account.token));
      expect(me.current_organization_id).not.toBe(org);
      expect(mine.map((entry) => entry.id)).toContain(me.current_organization_id);
    }
  });
});

describe('an organization deletion cut short', () => {
  it('is finished by the worker of the next process, from what the data plane says', async () => {
    const owner = await verifiedUser('Interrupted Owner');
    const org = owner.organizationId;
    const vpc = await call('POST', '/api/v1/vpcs', owner.token, {
      name: 'left-behind',
      cidr_block: '10.60.0.0/16',
      region: 'us-east-1',
    });
    expect(vpc.status).toBe(201);
    // As if a process had accepted the deletion and died before its worker took a step.
    await app.database.kysely
      .updateTable('organizations')
      .set({ deleting_at: app.clock.now().toISOString(), deleting_by: owner.id })
      .where('id', '=', org)
      .execute();
    const listed = data<{ id: string; status: string }[]>(
      await call('GET', '/v1/organizations', owner.token),
    );
    expect(listed.find((entry) => entry.id === org)?.status).toBe('deleting');
    const restarted = app.platform.startOrganizationDeletion();
    try {
      await eventually(async () => {
        const left = await app.database.kysely
          .selectFrom('organizations')
          .select('id')
          .where('id', '=', org)
          .execute();
        expect(left).toEqual([]);
      }, 30_000);
    } finally {
      await restarted.stop();
    }
    expect((await call('GET', `/api/v1/vpcs/${(vpc.body as { id: string }).id}`, owner.token)).status).toBe(
      404,
    );
  });
});
