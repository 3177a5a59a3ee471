/** NFS shares: list with their mount targets, create, delete. */
import { useState } from 'preact/hooks';
import { dataOf } from '../../../sdk/index.ts';
import { ActionForm, ConfirmButton, TextInput } from '../components/form.tsx';
import { ResourceTable } from '../components/table.tsx';
import { ErrorNotice, formatDate, Page, StatusBadge, useAction, useLoad } from '../components/ui.tsx';
import { api } from '../session.ts';

const SHARE_EVENTS = ['nfs_share'];

export function NfsShares() {
  const shares = useLoad(async () => dataOf(await api.GET('/v1/nfs-shares')), [], SHARE_EVENTS);
  const [name, setName] = useState('');
  const [size, setSize] = useState(10);
  const create = useAction(async () => {
    await api.POST('/v1/nfs-shares', { body: { name, size_gb: size } });
    setName('');
    shares.reload();
  });
  const remove = useAction(async (id: string) => {
    await api.DELETE('/v1/nfs-shares/{id}', { params: { path: { id } } });
    shares.reload();
  });
  return (
    <Page title="NFS shares">
      <ActionForm id="create-share" heading="Create a share" action={create} submit="Create share">
        <TextInput id="share-name" label="Name" value={name} onValue={setName} />
        <TextInput
          id="share-size"
          label="Size (GB)"
          type="number"
          min={1}
          value={size}
          onValue={(value) => setSize(Number(value))}
        />
      </ActionForm>
      <ErrorNotice error={shares.error ?? remove.error} />
      <ResourceTable
        label="Shared file systems"
        caption
        columns={['Name', 'Status', 'Size', 'Mount', 'Created']}
        actions
        rows={shares.data}
        empty="No share yet."
        row={(share) => (
          <tr key={share.id}>
            <td>{share.name}</td>
            <td>
              <StatusBadge status={share.status} />
              {share.message && <p class="hint">{share.message}</p>}
            </td>
            <td>
              {share.used_mb ?? 0} MB of {share.size_gb} GB{share.quota_exceeded ? ' (over quota)' : ''}
            </td>
            <td>{share.mount ? <code>{`${share.mount.server}:${share.mount.path}`}</code> : '—'}</td>
            <td>{formatDate(share.created_at)}</td>
            <td>
              <ConfirmButton
                label={`Delete ${share.name}`}
                question={`Delete the share ${share.name} and its files?`}
                onConfirm={() => void remove.run(share.id!)}
              >
                Delete
              </ConfirmButton>
            </td>
          </tr>
        )}
      />
    </Page>
  );
}
