// Vault operations through the REST API of `cloudplane serve` (a 1 KiB value, a user's bearer
// token, an auto-unseal cluster), and one request of each wire-format API (the Vault-compatible
// API's KV read with a vault token, the schema registry's GET /subjects, Kafka Connect's
// GET /connectors), as ratios to a bare node:http hello server measured in the same interleaved
// rounds; every vault read and encrypt writes its audit entry, durably, before it answers.
//
//   npm run bench:vault                                # builds, then 3 rounds of 4 s per target
//   BENCH_ROUNDS=5 BENCH_DURATION=10 npm run bench:vault
//   BENCH_BEFORE=/tmp/before npm run bench:vault       # also the same targets on a checkout built
//       there, in the same rounds, and this build's ratios over that one's:
//       git archive HEAD~1 | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/ &&
//       (cd /tmp/before && npx tsc -p tsconfig.build.json)
//
// The checkout beside runs as its own bench helpers start it (its hack/bench/rounds.mjs), so each
// build is measured as the process its own `npm start` runs.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  PLAINTEXT,
  SECRET_VALUE,
  benchAccount,
  benchVault,
  peakRssDuring,
  runRounds,
  withServers,
} from './rounds.mjs';

const BEFORE_ROOT = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE) : undefined;
const BEFORE = 'before: ';
/** The policy of the vault token the Vault-compatible read is made with: evaluated on every request. */
const READ_POLICY = 'path "secret/data/*" { capabilities = ["read"] }';

/** An account on `serve` with a vault cluster, a secret, a transit key and a streaming cluster. */
async function setUp(serve) {
  const account = await benchAccount(serve.url);
  const { id, api_address: vaultAddress } = await benchVault(account);
  // Stored answers 200 without a body, which the account helper would parse.
  const stored = await globalThis.fetch(`${serve.url}/api/v1/vault/${id}/policies`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench-read', rules: READ_POLICY }),
  });
  if (stored.status !== 200) throw new Error(`storing the policy answered ${stored.status}`);
  const vaultToken = await account.call('POST', `/api/v1/vault/${id}/tokens`, {
    body: { policies: ['bench-read'], ttl: 86_400 },
  });
  const streaming = await account.call('POST', '/v1/streaming/clusters', {
    body: { name: 'bench', region: 'us-east-1' },
  });
  return {
    account,
    vault: { id, address: new URL(vaultAddress), token: vaultToken.client_token },
    streaming: streaming.data,
  };
}

/** The targets on one server, their names prefixed with `label`. */
function targetsOf(serve, { account, vault, streaming }, label) {
  const headers = { authorization: `Bearer ${account.token}` };
  const target = (name, fields) => ({ name: `${label}${name}`, url: serve.url, pid: serve.pid, ...fields });
  return [
    target('vault secret read (1 KiB)', { path: `/api/v1/vault/${vault.id}/secret/bench/read`, headers }),
    target('vault secret write (1 KiB)', {
      method: 'POST',
      path: `/api/v1/vault/${vault.id}/secret/bench/written`,
      headers,
      body: { data: { value: SECRET_VALUE } },
    }),
    target('transit encrypt (1 KiB)', {
      method: 'POST',
      path: `/api/v1/vault/${vault.id}/encrypt/bench`,
      headers,
      body: { plaintext: PLAINTEXT },
    }),
    target('Vault-compatible KV read (token, policy)', {
      path: `${vault.address.pathname}/v1/secret/data/bench/read`,
      headers: { 'x-vault-token': vault.token },
    }),
    target('schema registry GET /subjects', {
      path: `${new URL(streaming.schema_registry_url).pathname}/subjects`,
      headers,
    }),
    target('Connect GET /connectors', {
      path: `${new URL(streaming.connect_url).pathname}/connectors`,
      headers,
    }),
  ];
}

/** This build's ratio to bare over the build beside's, per target. */
function beforeAfter(rows) {
  const byName = new Map(rows.map((row) => [row.target, row]));
  return rows
    .filter((row) => byName.has(`${BEFORE}${row.target}`))
    .map((row) => {
      const before = byName.get(`${BEFORE}${row.target}`);
      return {
        target: row.target,
        'before ratio': before['ratio to bare'],
        'after ratio': row['ratio to bare'],
        'after / before': Number((row['ratio to bare'] / before['ratio to bare']).toFixed(2)),
        'before p99 ms': before['p99 ms'],
        'after p99 ms': row['p99 ms'],
      };
    });
}

await withServers(async ({ hello, serve }) => {
  const beside = BEFORE_ROOT
    ? await (await import(pathToFileURL(path.join(BEFORE_ROOT, 'hack/bench/rounds.mjs')).href)).startServe()
    : undefined;
  try {
    const targets = targetsOf(serve, await setUp(serve), '');
    if (beside) targets.push(...targetsOf(beside, await setUp(beside), BEFORE));
    const { result: rows, peakMb } = await peakRssDuring(serve.pid, () =>
      runRounds([
        { name: 'node:http hello (baseline)', url: hello.bare.url, pid: hello.bare.pid, path: '/' },
        ...targets,
      ]),
    );
    console.table(rows);
    if (beside) {
      console.log(`this build against the build at ${BEFORE_ROOT} (ratios to bare in the same rounds):`);
      console.table(beforeAfter(rows));
    }
    console.log(
      `peak RSS of cloudplane serve under the load: ${peakMb} MB (since start: ${serve.highWaterMb()} MB)`,
    );
  } finally {
    await beside?.stop();
  }
});
