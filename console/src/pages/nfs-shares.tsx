/** NFS shares: list with their mount targets, create, delete. */
import { useState } from 'preact/hooks';
import { dataOf } from '../../../sdk/index.ts';
import {
  EmptyRow,
  ErrorNotice,
  Field,
  formatDate,
  Page,
  StatusBadge,
  useAction,
  useLoad,
} from '../components/ui.tsx';
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
      <form
        class="card form-grid"
        aria-labelledby="create-share"
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
      >
        <h2 id="create-share">Create a share</h2>
        <Field id="share-name" label="Name">
          {() => (
            <input
              id="share-name"
              required
              value={name}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field id="share-size" label="Size (GB)">
          {() => (
            <input
              id="share-size"
              type="number"
              min={1}
              required
              value={size}
              onInput={(event) => setSize(Number(event.currentTarget.value))}
            />
          )}
        </Field>
        <ErrorNotice error={create.error} />
        <div class="form-actions">
          <button type="submit" class="primary" disabled={create.busy}>
            Create share
          </button>
        </div>
      </form>
      <ErrorNotice error={shares.error ?? remove.error} />
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Shared file systems">
        <table>
          <caption>Shared file systems</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Size</th>
              <th scope="col">Mount</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {shares.data?.length === 0 && <EmptyRow columns={6}>No share yet.</EmptyRow>}
            {shares.data?.map((share) => (
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
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Delete ${share.name}`}
                    onClick={() => {
                      if (confirm(`Delete the share ${share.name} and its files?`))
                        void remove.run(share.id!);
                    }}
                  >
                    Delete
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
