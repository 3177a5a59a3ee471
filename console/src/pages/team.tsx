/** The current organization's members with their roles, and its invitations. */
import { useState } from 'preact/hooks';
import { dataOf } from '../../../sdk/index.ts';
import { ActionForm, SelectInput, TextInput } from '../components/form.tsx';
import { ResourceTable } from '../components/table.tsx';
import { ErrorNotice, formatDate, Page, useAction, useLoad } from '../components/ui.tsx';
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
      <ResourceTable
        label="Members"
        caption
        columns={['Name', 'Email', 'Role', 'Joined']}
        rows={team.data?.members}
        empty="No member."
        row={(member) => (
          <tr key={member.user_id}>
            <td>{member.name}</td>
            <td>{member.email}</td>
            <td>
              <select
                aria-label={`Role of ${member.email}`}
                value={member.role}
                disabled={changeRole.busy}
                onChange={(event) => void changeRole.run(member.user_id!, event.currentTarget.value as Role)}
              >
                {ROLES.map((choice) => (
                  <option key={choice}>{choice}</option>
                ))}
              </select>
            </td>
            <td>{formatDate(member.joined_at)}</td>
          </tr>
        )}
      />
      <ActionForm id="invite" heading="Invite a member" action={invite} submit="Send invitation">
        <TextInput id="invite-email" label="Email address" type="email" value={email} onValue={setEmail} />
        <SelectInput id="invite-role" label="Role" choices={ROLES} value={role} onValue={setRole} />
      </ActionForm>
      <ResourceTable
        label="Pending invitations"
        caption
        columns={['Email', 'Role', 'Expires']}
        actions
        rows={team.data?.invitations}
        empty="No pending invitation."
        row={(invitation) => (
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
        )}
      />
    </Page>
  );
}
