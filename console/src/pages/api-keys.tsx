/** API keys: the list, a new key (its secret shown once), revocation. */
import { useState } from 'preact/hooks';
import { dataOf } from '../../../sdk/index.ts';
import { EmptyRow, ErrorNotice, Field, formatDate, Page, useAction, useLoad } from '../components/ui.tsx';
import { API_KEY_SCOPES } from '../scopes.ts';
import { api } from '../session.ts';

export function ApiKeys() {
  const keys = useLoad(async () => dataOf(await api.GET('/v1/auth/api-keys')), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['vpc:read']);
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const create = useAction(async () => {
    const key = dataOf(await api.POST('/v1/auth/api-keys', { body: { name, scopes } }));
    setCreated({ name: key.name ?? name, key: key.key ?? '' });
    setName('');
    keys.reload();
  });
  const revoke = useAction(async (id: string) => {
    await api.DELETE('/v1/auth/api-keys/{id}', { params: { path: { id } } });
    keys.reload();
  });
  return (
    <Page title="API keys">
      {created && (
        <div class="notice" role="status">
          <p>
            The key <strong>{created.name}</strong> is shown this once; keep it somewhere safe:
          </p>
          <p>
            <code class="secret" data-testid="new-api-key">
              {created.key}
            </code>
          </p>
          <button type="button" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      )}
      <form
        class="card form-grid"
        aria-labelledby="create-key"
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
      >
        <h2 id="create-key">Create an API key</h2>
        <Field id="key-name" label="Key name">
          {() => (
            <input
              id="key-name"
              required
              value={name}
              onInput={(event) => setName(event.currentTarget.value)}
            />
          )}
        </Field>
        <fieldset class="scopes">
          <legend>Scopes</legend>
          {API_KEY_SCOPES.map((scope) => (
            <label key={scope} class="check">
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(event) =>
                  setScopes(
                    event.currentTarget.checked
                      ? [...scopes, scope]
                      : scopes.filter((other) => other !== scope),
                  )
                }
              />{' '}
              {scope === '*' ? 'everything (*)' : scope}
            </label>
          ))}
        </fieldset>
        <ErrorNotice error={create.error} />
        <div class="form-actions">
          <button type="submit" class="primary" disabled={create.busy || scopes.length === 0}>
            Create key
          </button>
        </div>
      </form>
      <ErrorNotice error={keys.error ?? revoke.error} />
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Your API keys in this organization">
        <table>
          <caption>Your API keys in this organization</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scopes</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data?.length === 0 && <EmptyRow columns={5}>No API key yet.</EmptyRow>}
            {keys.data?.map((key) => (
              <tr key={key.id}>
                <td>{key.name}</td>
                <td>
                  <code>{key.prefix}</code>
                </td>
                <td>{key.scopes?.join(', ')}</td>
                <td>{formatDate(key.last_used_at)}</td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Revoke ${key.name}`}
                    onClick={() => {
                      if (confirm(`Revoke the key ${key.name}?`)) void revoke.run(key.id!);
                    }}
                  >
                    Revoke
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
