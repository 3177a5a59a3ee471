/** API keys: the list, a new key (its secret shown once), revocation. */
import { useState } from 'preact/hooks';
import { dataOf } from '../../../sdk/index.ts';
import { ActionForm, ConfirmButton, ShownOnce, TextInput } from '../components/form.tsx';
import { ResourceTable } from '../components/table.tsx';
import { ErrorNotice, formatDate, Page, useAction, useLoad } from '../components/ui.tsx';
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
        <ShownOnce secret={created.key} testId="new-api-key" onDone={() => setCreated(undefined)}>
          The key <strong>{created.name}</strong> is shown this once; keep it somewhere safe:
        </ShownOnce>
      )}
      <ActionForm
        id="create-key"
        heading="Create an API key"
        action={create}
        submit="Create key"
        disabled={scopes.length === 0}
      >
        <TextInput id="key-name" label="Key name" value={name} onValue={setName} />
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
      </ActionForm>
      <ErrorNotice error={keys.error ?? revoke.error} />
      <ResourceTable
        label="Your API keys in this organization"
        caption
        columns={['Name', 'Prefix', 'Scopes', 'Last used']}
        actions
        rows={keys.data}
        empty="No API key yet."
        row={(key) => (
          <tr key={key.id}>
            <td>{key.name}</td>
            <td>
              <code>{key.prefix}</code>
            </td>
            <td>{key.scopes?.join(', ')}</td>
            <td>{formatDate(key.last_used_at)}</td>
            <td>
              <ConfirmButton
                label={`Revoke ${key.name}`}
                question={`Revoke the key ${key.name}?`}
                onConfirm={() => void revoke.run(key.id!)}
              >
                Revoke
              </ConfirmButton>
            </td>
          </tr>
        )}
      />
    </Page>
  );
}
