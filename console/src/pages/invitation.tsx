/** The page an invitation mail links to (`/accept-invitation?token=…`), opened once signed in. */
import { useState } from 'preact/hooks';
import { ErrorNotice, Page, useAction } from '../components/ui.tsx';
import { useLocation } from '../router.ts';
import { api, loadMe } from '../session.ts';

export function AcceptInvitation() {
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const [joined, setJoined] = useState(false);
  const accept = useAction(async () => {
    await api.POST('/v1/invitations/{token}/accept', { params: { path: { token } } });
    setJoined(true);
    await loadMe();
  });
  return (
    <Page title="Join an organization">
      {joined ? (
        <p role="status">You joined the organization. Switch to it with the organization menu above.</p>
      ) : (
        <>
          <p>Accept the invitation to join the organization that sent it to you.</p>
          <ErrorNotice error={accept.error} />
          <button
            type="button"
            class="primary"
            disabled={accept.busy || !token}
            onClick={() => void accept.run()}
          >
            Accept invitation
          </button>
        </>
      )}
    </Page>
  );
}
