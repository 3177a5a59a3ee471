// Vault operations through the REST API of `cloudplane serve` (a 1 KiB value, a user's bearer
// token, an auto-unseal cluster), as ratios to a bare node:http hello server measured in the
// same interleaved rounds; every read and encrypt writes its audit entry before it answers.
//
//   npm run bench:vault                                # builds, then 3 rounds of 4 s per target
//   BENCH_ROUNDS=5 BENCH_DURATION=10 npm run bench:vault
import { randomBytes } from 'node:crypto';
import { benchAccount, peakRssDuring, runRounds, withServers } from './rounds.mjs';

const VALUE = randomBytes(768).toString('base64');
const PLAINTEXT = randomBytes(1024).toString('base64');

await withServers(async ({ hello, serve }) => {
  const account = await benchAccount(serve.url);
  const { id } = await account.call('POST', '/api/v1/vault', { body: { name: 'bench', auto_unseal: true } });
  await account.call('POST', `/api/v1/vault/${id}/secret/bench/read`, { body: { data: { value: VALUE } } });
  await account.call('POST', `/api/v1/vault/${id}/encrypt/bench`, { body: { plaintext: PLAINTEXT } });
  const headers = { authorization: `Bearer ${account.token}` };
  const { result: rows, peakMb } = await peakRssDuring(serve.pid, () =>
    runRounds([
      { name: 'node:http hello (baseline)', url: hello.bare.url, pid: hello.bare.pid, path: '/' },
      {
        name: 'vault secret read (1 KiB)',
        url: serve.url,
        pid: serve.pid,
        path: `/api/v1/vault/${id}/secret/bench/read`,
        headers,
      },
      {
        name: 'vault secret write (1 KiB)',
        url: serve.url,
        pid: serve.pid,
        method: 'POST',
        path: `/api/v1/vault/${id}/secret/bench/written`,
        headers,
        body: { data: { value: VALUE } },
      },
      {
        name: 'transit encrypt (1 KiB)',
        url: serve.url,
        pid: serve.pid,
        method: 'POST',
        path: `/api/v1/vault/${id}/encrypt/bench`,
        headers,
        body: { plaintext: PLAINTEXT },
      },
    ]),
  );
  console.table(rows);
  console.log(
    `peak RSS of cloudplane serve under the load: ${peakMb} MB (since start: ${serve.highWaterMb()} MB)`,
  );
});
