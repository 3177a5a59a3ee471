/**
 * Vault clusters: list and create (unseal keys shown once), unseal with key shares, a secrets
 * browser whose values stay hidden until "Reveal", and transit encryption.
 */
import { useState } from 'preact/hooks';
import { Link } from '../components/link.tsx';
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
    <form
      class="card form-grid"
      aria-labelledby="create-vault"
      onSubmit={(event) => {
        event.preventDefault();
        void create.run();
      }}
    >
      <h2 id="create-vault">Create a vault cluster</h2>
      <Field id="vault-name" label="Name">
        {() => (
          <input
            id="vault-name"
            required
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        )}
      </Field>
      <label class="check">
        <input
          type="checkbox"
          checked={autoUnseal}
          onChange={(event) => setAutoUnseal(event.currentTarget.checked)}
        />{' '}
        Unseal automatically (the platform keeps the key)
      </label>
      <ErrorNotice error={create.error} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={create.busy}>
          Create vault cluster
        </button>
      </div>
    </form>
  );
}

export function VaultClusters() {
  const clusters = useLoad(async () => (await api.GET('/api/v1/vault')).data ?? [], [], VAULT_EVENTS);
  return (
    <Page title="Vault">
      <CreateVault />
      <ErrorNotice error={clusters.error} />
      <div
        class="table-wrap"
        tabIndex={0}
        role="region"
        aria-label="Vault clusters: secrets, transit encryption, policies and tokens"
      >
        <table>
          <caption>Vault clusters: secrets, transit encryption, policies and tokens</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Secrets</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {clusters.data?.length === 0 && <EmptyRow columns={4}>No vault cluster yet.</EmptyRow>}
            {clusters.data?.map((cluster) => (
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
            ))}
          </tbody>
        </table>
      </div>
    </Page>
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
    <form
      class="card form-grid"
      aria-labelledby="unseal"
      onSubmit={(event) => {
        event.preventDefault();
        void unseal.run();
      }}
    >
      <h2 id="unseal">Unseal</h2>
      <Field id="unseal-key" label="Unseal key">
        {() => (
          <input
            id="unseal-key"
            type="password"
            autocomplete="off"
            required
            value={key}
            onInput={(event) => setKey(event.currentTarget.value)}
          />
        )}
      </Field>
      {progress && <p role="status">{progress}</p>}
      <ErrorNotice error={unseal.error} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={unseal.busy}>
          Give key
        </button>
      </div>
    </form>
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
          <dl class="facts secret-values" data-testid="secret-values">
            {Object.entries(values).map(([key, value]) => (
              <div key={key}>
                <dt>{key}</dt>
                <dd>
                  <code>{String(value)}</code>
                </dd>
              </div>
            ))}
          </dl>
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
      <form
        class="card form-grid"
        aria-labelledby="write-secret"
        onSubmit={(event) => {
          event.preventDefault();
          void write.run();
        }}
      >
        <h3 id="write-secret">Write a secret</h3>
        <Field id="secret-path" label="Path" hint="e.g. app/config; writing again adds a version.">
          {(describedBy) => (
            <input
              id="secret-path"
              required
              aria-describedby={describedBy}
              value={path}
              onInput={(event) => setPath(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field id="secret-key" label="Key">
          {() => (
            <input
              id="secret-key"
              required
              value={key}
              onInput={(event) => setKey(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field id="secret-value" label="Value">
          {() => (
            <input
              id="secret-value"
              type="password"
              autocomplete="off"
              required
              value={value}
              onInput={(event) => setValue(event.currentTarget.value)}
            />
          )}
        </Field>
        <ErrorNotice error={write.error} />
        <div class="form-actions">
          <button type="submit" class="primary" disabled={write.busy}>
            Write secret
          </button>
        </div>
      </form>
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
        <Field id="transit-key" label="Key name" hint="Made on first use.">
          {(describedBy) => (
            <input
              id="transit-key"
              aria-describedby={describedBy}
              value={keyName}
              onInput={(event) => setKeyName(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field id="transit-plaintext" label="Plaintext">
          {() => (
            <input
              id="transit-plaintext"
              value={plaintext}
              onInput={(event) => setPlaintext(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field id="transit-ciphertext" label="Ciphertext">
          {() => (
            <input
              id="transit-ciphertext"
              value={cipherText}
              onInput={(event) => setCipherText(event.currentTarget.value)}
            />
          )}
        </Field>
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

export function VaultDetail({ id }: { id: string }) {
  const cluster = useLoad(
    async () => (await api.GET('/api/v1/vault/{id}', { params: { path: { id } } })).data,
    [id],
    VAULT_EVENTS,
  );
  const detail = cluster.data;
  return (
    <Page title={detail?.name ? `Vault ${detail.name}` : 'Vault cluster'}>
      <p>
        <Link href="/vaults">← All vault clusters</Link>
      </p>
      <ErrorNotice error={cluster.error} />
      {detail && (
        <dl class="facts">
          <div>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={detail.status} />
            </dd>
          </div>
          <div>
            <dt>Vault API address</dt>
            <dd>
              <code>{detail.api_address}</code>
            </dd>
          </div>
          <div>
            <dt>Secrets</dt>
            <dd>{detail.total_secrets}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>{formatDate(detail.created_at)}</dd>
          </div>
        </dl>
      )}
      {detail?.sealed && <Unseal id={id} onProgress={cluster.reload} />}
      {detail && !detail.sealed && (
        <>
          <Secrets clusterId={id} />
          <Transit clusterId={id} />
        </>
      )}
    </Page>
  );
}
