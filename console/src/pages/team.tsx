/** The current organization's members with their roles, and its invitations. */
import { useState } from 'preact/hooks';
import { dataOf } from '../../../sdk/index.ts';
import { EmptyRow, ErrorNotice, Field, formatDate, Page, useAction, useLoad } from '../components/ui.tsx';
import { api, useSession } from '../session.ts';

const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
type Role = (typeof ROLES)[number];

export function Team() {
  const session = useSession();
  const organizationId = session.status === 'signed-in' ? session.me.current_organization_id : '';
  const organization = { params: { path: { id: organizationId } } };
  const team = useLoad(async () => {
    const [members, invitations] = await Promise.all([
      api.GET('/v1/organizations/{id}/members', organization),
      api.GET('/v1/organizations/{id}/invitations', organization),
    ]);
    return { members: dataOf(members), invitations: dataOf(invitations) };
  }, [organizationId]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const invite = useAction(async () => {
    await api.POST('/v1/organizations/{id}/invitations', { ...organization, body: { email, role } });
    setEmail('');
    team.reload();
  });
  const changeRole = useAction(async (userId: string, next: Role) => {
    await api.PATCH('/v1/organizations/{id}/members/{user_id}', {
      params: { path: { id: organizationId, user_id: userId } },
      body: { role: next },
    });
    team.reload();
  });
  const cancel = useAction(async (invitationId: string) => {
    await api.DELETE('/v1/organizations/{id}/invitations/{invitation_id}', {
      params: { path: { id: organizationId, invitation_id: invitationId } },
    });
    team.reload();
  });
  return (
    <Page title="Team">
      <ErrorNotice error={team.error ?? changeRole.error ?? cancel.error} />
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Members">
        <table>
          <caption>Members</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Joined</th>
            </tr>
          </thead>
          <tbody>
            {team.data?.members.map((member) => (
              <tr key={member.user_id}>
                <td>{member.name}</td>
                <td>{member.email}</td>
                <td>
                  <select
                    aria-label={`Role of ${member.email}`}
                    value={member.role}
                    disabled={changeRole.busy}
                    onChange={(event) =>
                      void changeRole.run(member.user_id!, event.currentTarget.value as Role)
                    }
                  >
                    {ROLES.map((choice) => (
                      <option key={choice}>{choice}</option>
                    ))}
                  </select>
                </td>
                <td>{formatDate(member.joined_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form
        class="card form-grid"
        aria-labelledby="invite"
        onSubmit={(event) => {
          event.preventDefault();
          void invite.run();
        }}
      >
        <h2 id="invite">Invite a member</h2>
        <Field id="invite-email" label="Email address">
          {() => (
            <input
              id="invite-email"
              type="email"
              required
              value={email}
              onInput={(event) => setEmail(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field id="invite-role" label="Role">
          {() => (
            <select
              id="invite-role"
              value={role}
              onChange={(event) => setRole(event.currentTarget.value as Role)}
            >
              {ROLES.map((choice) => (
                <option key={choice}>{choice}</option>
              ))}
            </select>
          )}
        </Field>
        <ErrorNotice error={invite.error} />
        <div class="form-actions">
          <button type="submit" class="primary" disabled={invite.busy}>
            Send invitation
          </button>
        </div>
      </form>
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Pending invitations">
        <table>
          <caption>Pending invitations</caption>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {team.data?.invitations.length === 0 && <EmptyRow columns={4}>No pending invitation.</EmptyRow>}
            {team.data?.invitations.map((invitation) => (
              <tr key={invitation.id}>
                <td>{invitation.email}</td>
                <td>{invitation.role}</td>
                <td>{formatDate(invitation.expires_at)}</td>
                <td>
                  <button
                    type="button"
                    aria-label={`Cancel the invitation of ${invitation.email}`}
                    onClick={() => void cancel.run(invitation.id!)}
                  >
                    Cancel
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Page>
  );
}
