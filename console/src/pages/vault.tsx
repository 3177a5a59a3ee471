/**
 * Vault clusters: list and create (unseal keys shown once), unseal with key shares, a secrets
 * browser whose values stay hidden until "Reveal", transit encryption, policies, and tokens (the
 * token shown once).
 */
import { useState } from 'preact/hooks';
import { Link } from '../components/link.tsx';
import { DetailPage, Facts } from '../components/detail.tsx';
import { ActionForm, ConfirmButton, ShownOnce, TextInput } from '../components/form.tsx';
import { SecretValues } from '../components/secret-values.tsx';
import { ListPage, ResourceTable } from '../components/table.tsx';
import {
  ErrorNotice,
  Field,
  formatDate,
  StatusBadge,
  useAction,
  useLoad,
  type Loaded,
} from '../components/ui.tsx';
import { navigate } from '../router.ts';
import { api } from '../session.ts';

const VAULT_EVENTS = ['vault_cluster'];

/** The `data` of a Vault-style answer (`{request_id, data, …}`). */
function vaultData<T>(answer: { data?: { data?: unknown } }): T {
  return (answer.data?.data ?? {}) as T;
}

function CreateVault() {
  const [name, setName] = useState('');
  const [autoUnseal, setAutoUnseal] = useState(true);
  const [created, setCreated] = useState<{ id: string; keys: string[] }>();
  const create = useAction(async () => {
    const { data } = await api.POST('/api/v1/vault', { body: { name, auto_unseal: autoUnseal } });
    if (data?.unseal_keys?.length) setCreated({ id: data.id!, keys: data.unseal_keys });
    else navigate(`/vaults/${data!.id}`);
  });
  if (created) {
    return (
      <div class="notice" role="status">
        <p>
          The unseal keys are shown this once. Keep each with a different person; any three of them unseal the
          cluster.
        </p>
        <ol data-testid="unseal-keys">
          {created.keys.map((key) => (
            <li key={key}>
              <code class="secret">{key}</code>
            </li>
          ))}
        </ol>
        <button type="button" onClick={() => navigate(`/vaults/${created.id}`)}>
          I have kept them
        </button>
      </div>
    );
  }
  return (
    <ActionForm
      id="create-vault"
      heading="Create a vault cluster"
      action={create}
      submit="Create vault cluster"
    >
      <TextInput id="vault-name" label="Name" value={name} onValue={setName} />
      <label class="check">
        <input
          type="checkbox"
          checked={autoUnseal}
          onChange={(event) => setAutoUnseal(event.currentTarget.checked)}
        />{' '}
        Unseal automatically (the platform keeps the key)
      </label>
    </ActionForm>
  );
}

export function VaultClusters() {
  const clusters = useLoad(async () => (await api.GET('/api/v1/vault')).data ?? [], [], VAULT_EVENTS);
  return (
    <ListPage
      title="Vault"
      create={<CreateVault />}
      error={clusters.error}
      label="Vault clusters: secrets, transit encryption, policies and tokens"
      caption
      columns={['Name', 'Status', 'Secrets', 'Created']}
      rows={clusters.data}
      empty="No vault cluster yet."
      row={(cluster) => (
        <tr key={cluster.id}>
          <td>
            <Link href={`/vaults/${cluster.id}`}>{cluster.name}</Link>
          </td>
          <td>
            <StatusBadge status={cluster.status} />
          </td>
          <td>{cluster.total_secrets}</td>
          <td>{formatDate(cluster.created_at)}</td>
        </tr>
      )}
    />
  );
}

function Unseal({ id, onProgress }: { id: string; onProgress: () => void }) {
  const [key, setKey] = useState('');
  const [progress, setProgress] = useState<string>();
  const unseal = useAction(async () => {
    const { data } = await api.POST('/api/v1/vault/{id}/unseal', { params: { path: { id } }, body: { key } });
    setKey('');
    setProgress(data?.sealed ? `${data.progress} of ${data.t} keys given` : 'Unsealed');
    onProgress();
  });
  return (
    <ActionForm id="unseal" heading="Unseal" action={unseal} submit="Give key">
      <TextInput
        id="unseal-key"
        label="Unseal key"
        type="password"
        autocomplete="off"
        value={key}
        onValue={setKey}
      />
      {progress && <p role="status">{progress}</p>}
    </ActionForm>
  );
}

/** One secret: its keys listed, its values shown only after "Reveal". */
function Secret({ clusterId, path }: { clusterId: string; path: string }) {
  const [values, setValues] = useState<Record<string, unknown>>();
  const reveal = useAction(async () => {
    const answer = await api.GET('/api/v1/vault/{id}/secret/{path}', {
      params: { path: { id: clusterId, path } },
    });
    setValues(vaultData<{ data?: Record<string, unknown> }>(answer).data ?? {});
  });
  return (
    <li>
      <code>{path}</code>{' '}
      {values ? (
        <>
          <button type="button" onClick={() => setValues(undefined)}>
            Hide
          </button>
          <SecretValues values={values} testId="secret-values" />
        </>
      ) : (
        <button
          type="button"
          aria-label={`Reveal ${path}`}
          disabled={reveal.busy}
          onClick={() => void reveal.run()}
        >
          Reveal
        </button>
      )}
      <ErrorNotice error={reveal.error} />
    </li>
  );
}

function Secrets({ clusterId }: { clusterId: string }) {
  const listing = useLoad(async () => {
    const answer = await api.GET('/api/v1/vault/{id}/secret', {
      params: { path: { id: clusterId }, query: { path: '', list: true } },
    });
    return vaultData<{ keys?: string[] }>(answer).keys ?? [];
  }, [clusterId]);
  const [path, setPath] = useState('');
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const write = useAction(async () => {
    await api.POST('/api/v1/vault/{id}/secret/{path}', {
      params: { path: { id: clusterId, path } },
      // The document describes `data` as a free-form object, which the SDK types as empty.
      body: { data: { [key]: value } as Record<string, never> },
    });
    setValue('');
    listing.reload();
  });
  return (
    <section aria-labelledby="secrets">
      <h2 id="secrets">Secrets</h2>
      <ErrorNotice error={listing.error} />
      <ul class="plain-list secret-list">
        {listing.data?.map((secretPath) => (
          <Secret key={secretPath} clusterId={clusterId} path={secretPath} />
        ))}
        {listing.data?.length === 0 && <li class="muted">No secret yet.</li>}
      </ul>
      <ActionForm id="write-secret" heading="Write a secret" level={3} action={write} submit="Write secret">
        <TextInput
          id="secret-path"
          label="Path"
          hint="e.g. app/config; writing again adds a version."
          value={path}
          onValue={setPath}
        />
        <TextInput id="secret-key" label="Key" value={key} onValue={setKey} />
        <TextInput
          id="secret-value"
          label="Value"
          type="password"
          autocomplete="off"
          value={value}
          onValue={setValue}
        />
      </ActionForm>
    </section>
  );
}

const toBase64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
const fromBase64 = (encoded: string) =>
  new TextDecoder().decode(Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0)));

function Transit({ clusterId }: { clusterId: string }) {
  const [keyName, setKeyName] = useState('app');
  const [plaintext, setPlaintext] = useState('');
  const [cipherText, setCipherText] = useState('');
  const [decrypted, setDecrypted] = useState<string>();
  const params = { params: { path: { id: clusterId, key: keyName } } };
  const encrypt = useAction(async () => {
    const { data } = await api.POST('/api/v1/vault/{id}/encrypt/{key}', {
      ...params,
      body: { plaintext: toBase64(plaintext) },
    });
    setCipherText(data?.cipher_text ?? '');
  });
  const decrypt = useAction(async () => {
    const { data } = await api.POST('/api/v1/vault/{id}/decrypt/{key}', {
      ...params,
      body: { cipher_text: cipherText },
    });
    setDecrypted(fromBase64(data?.plaintext ?? ''));
  });
  return (
    <section class="card" aria-labelledby="transit">
      <h2 id="transit">Transit encryption</h2>
      <div class="form-grid">
        <TextInput
          id="transit-key"
          label="Key name"
          hint="Made on first use."
          required={false}
          value={keyName}
          onValue={setKeyName}
        />
        <TextInput
          id="transit-plaintext"
          label="Plaintext"
          required={false}
          value={plaintext}
          onValue={setPlaintext}
        />
        <TextInput
          id="transit-ciphertext"
          label="Ciphertext"
          required={false}
          value={cipherText}
          onValue={setCipherText}
        />
      </div>
      {decrypted !== undefined && (
        <p role="status">
          Decrypted: <code data-testid="decrypted">{decrypted}</code>
        </p>
      )}
      <ErrorNotice error={encrypt.error ?? decrypt.error} />
      <div class="form-actions">
        <button type="button" disabled={encrypt.busy || !plaintext} onClick={() => void encrypt.run()}>
          Encrypt
        </button>
        <button type="button" disabled={decrypt.busy || !cipherText} onClick={() => void decrypt.run()}>
          Decrypt
        </button>
      </div>
    </section>
  );
}

/** A policy as the list answers it (the document leaves its items untyped). */
interface Policy {
  name: string;
  description?: string;
  rules?: string;
}

/** Vault's own policies: always there, never deleted. */
const BUILT_IN_POLICIES = new Set(['default', 'root']);

const EXAMPLE_RULES = `path "secret/data/app/*" {
  capabilities = ["read", "list"]
}`;

/** The cluster's ACL policies: list, write one from its HCL rules, delete. */
function Policies({ clusterId, policies }: { clusterId: string; policies: Loaded<Policy[]> }) {
  const [name, setName] = useState('');
  const [rules, setRules] = useState(EXAMPLE_RULES);
  const [description, setDescription] = useState('');
  const write = useAction(async () => {
    await api.POST('/api/v1/vault/{id}/policies', {
      params: { path: { id: clusterId } },
      body: { name, rules, ...(description ? { description } : {}) },
    });
    setName('');
    setDescription('');
    policies.reload();
  });
  const remove = useAction(async (policy: string) => {
    await api.DELETE('/api/v1/vault/{id}/policies/{name}', {
      params: { path: { id: clusterId, name: policy } },
    });
    policies.reload();
  });
  return (
    <section aria-labelledby="policies">
      <h2 id="policies">Policies</h2>
      <ErrorNotice error={policies.error ?? remove.error} />
      <ResourceTable
        label="Policies of this cluster"
        caption
        columns={['Name', 'Description', 'Rules']}
        actions
        rows={policies.data}
        empty="No policy."
        row={(policy) => (
          <tr key={policy.name}>
            <td>{policy.name}</td>
            <td>{policy.description || '—'}</td>
            <td>
              <pre class="policy-rules">{policy.rules || '—'}</pre>
            </td>
            <td>
              {!BUILT_IN_POLICIES.has(policy.name) && (
                <ConfirmButton
                  label={`Delete the policy ${policy.name}`}
                  question={`Delete the policy ${policy.name}? Tokens holding it lose what it allowed.`}
                  disabled={remove.busy}
                  onConfirm={() => void remove.run(policy.name)}
                >
                  Delete
                </ConfirmButton>
              )}
            </td>
          </tr>
        )}
      />
      <ActionForm id="write-policy" heading="Write a policy" level={3} action={write} submit="Write policy">
        <TextInput
          id="policy-name"
          label="Policy name"
          hint="Writing an existing name replaces its rules."
          value={name}
          onValue={setName}
        />
        <Field id="policy-rules" label="Rules (HCL)">
          {() => (
            <textarea
              id="policy-rules"
              rows={6}
              spellcheck={false}
              required
              value={rules}
              onInput={(event) => setRules(event.currentTarget.value)}
            />
          )}
        </Field>
        <TextInput
          id="policy-description"
          label="Description"
          required={false}
          value={description}
          onValue={setDescription}
        />
      </ActionForm>
    </section>
  );
}

/** The cluster's tokens: the live ones (never their values), create one with policies, revoke. */
function Tokens({ clusterId, policies }: { clusterId: string; policies: readonly Policy[] }) {
  const path = { params: { path: { id: clusterId } } };
  const tokens = useLoad(
    async () => (await api.GET('/api/v1/vault/{id}/tokens', path)).data ?? [],
    [clusterId],
  );
  const [displayName, setDisplayName] = useState('');
  const [ttl, setTtl] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [created, setCreated] = useState<{ name: string; token: string }>();
  const create = useAction(async () => {
    const { data } = await api.POST('/api/v1/vault/{id}/tokens', {
      ...path,
      body: {
        policies: chosen,
        ...(displayName ? { display_name: displayName } : {}),
        ...(ttl ? { ttl: Number(ttl) } : {}),
      },
    });
    setCreated({ name: data?.display_name ?? displayName, token: data?.client_token ?? '' });
    setDisplayName('');
    tokens.reload();
  });
  const revoke = useAction(async (accessor: string) => {
    await api.DELETE('/api/v1/vault/{id}/tokens/{accessor}', {
      params: { path: { id: clusterId, accessor } },
    });
    tokens.reload();
  });
  // The root policy is given only by the root token's own ways; a token asks for the others.
  const choices = policies.filter((policy) => policy.name !== 'root');
  return (
    <section aria-labelledby="tokens">
      <h2 id="tokens">Tokens</h2>
      {created && (
        <ShownOnce secret={created.token} testId="new-vault-token" onDone={() => setCreated(undefined)}>
          The token <strong>{created.name}</strong> is shown this once:
        </ShownOnce>
      )}
      <ErrorNotice error={tokens.error ?? revoke.error} />
      <ResourceTable
        label="Live tokens"
        caption
        columns={['Name', 'Accessor', 'Policies', 'Expires']}
        actions
        rows={tokens.data}
        empty="No token."
        row={(token) => (
          <tr key={token.accessor}>
            <td>{token.display_name}</td>
            <td>
              <code>{token.accessor}</code>
            </td>
            <td>{token.policies?.join(', ')}</td>
            <td>{token.expire_time ? formatDate(token.expire_time) : 'never'}</td>
            <td>
              <ConfirmButton
                label={`Revoke the token ${token.display_name}`}
                question={`Revoke the token ${token.display_name}? Whoever holds it loses access at once.`}
                disabled={revoke.busy}
                onConfirm={() => void revoke.run(token.accessor!)}
              >
                Revoke
              </ConfirmButton>
            </td>
          </tr>
        )}
      />
      <ActionForm
        id="create-token"
        heading="Create a token"
        level={3}
        action={create}
        submit="Create token"
        disabled={chosen.length === 0}
      >
        <TextInput
          id="token-name"
          label="Token name"
          required={false}
          value={displayName}
          onValue={setDisplayName}
        />
        <TextInput
          id="token-ttl"
          label="Time to live (seconds)"
          hint="Empty: the token method's default."
          type="number"
          min={0}
          required={false}
          value={ttl}
          onValue={setTtl}
        />
        <fieldset class="scopes">
          <legend>Token policies</legend>
          {choices.map((policy) => (
            <label key={policy.name} class="check">
              <input
                type="checkbox"
                checked={chosen.includes(policy.name)}
                onChange={(event) =>
                  setChosen(
                    event.currentTarget.checked
                      ? [...chosen, policy.name]
                      : chosen.filter((other) => other !== policy.name),
                  )
                }
              />{' '}
              {policy.name}
            </label>
          ))}
        </fieldset>
      </ActionForm>
    </section>
  );
}

/** Policies are read once for both sections: the token form offers them. */
function Access({ clusterId }: { clusterId: string }) {
  const policies = useLoad(async () => {
    const { data } = await api.GET('/api/v1/vault/{id}/policies', { params: { path: { id: clusterId } } });
    return (data?.policies ?? []) as Policy[];
  }, [clusterId]);
  return (
    <>
      <Policies clusterId={clusterId} policies={policies} />
      <Tokens clusterId={clusterId} policies={policies.data ?? []} />
    </>
  );
}

export function VaultDetail({ id }: { id: string }) {
  const cluster = useLoad(
    async () => (await api.GET('/api/v1/vault/{id}', { params: { path: { id } } })).data,
    [id],
    VAULT_EVENTS,
  );
  const detail = cluster.data;
  return (
    <DetailPage
      title={detail?.name ? `Vault ${detail.name}` : 'Vault cluster'}
      backHref="/vaults"
      backLabel="← All vault clusters"
      error={cluster.error}
    >
      {detail && (
        <Facts
          facts={[
            ['Status', <StatusBadge status={detail.status} />],
            ['Vault API address', <code>{detail.api_address}</code>],
            ['Secrets', detail.total_secrets],
            ['Created', formatDate(detail.created_at)],
          ]}
        />
      )}
      {detail?.sealed && <Unseal id={id} onProgress={cluster.reload} />}
      {detail && !detail.sealed && (
        <>
          <Secrets clusterId={id} />
          <Transit clusterId={id} />
          <Access clusterId={id} />
        </>
      )}
    </DetailPage>
  );
}
