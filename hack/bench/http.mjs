// Throughput of the REST facade as `cloudplane serve` runs it, as ratios to a bare node:http hello
// server measured in the same interleaved rounds; Express's own hello world for reference;
// start-up time to the first `/health` 200 and the server's peak RSS under the load.
//
//   npm run bench:http                                # builds, then 3 rounds of 4 s per target
//   BENCH_ROUNDS=5 BENCH_DURATION=10 npm run bench:http
import { benchAccount, peakRssDuring, runRounds, withServers } from './rounds.mjs';

await withServers(async ({ hello, serve }) => {
  const account = await benchAccount(serve.url);
  const apiKey = (
    await account.call('POST', '/v1/auth/api-keys', { body: { name: 'bench', scopes: ['vpc:read'] } })
  ).data.key;
  const vpc = await account.call('POST', '/api/v1/vpcs', {
    body: { name: 'bench', cidr_block: '10.20.0.0/16', region: 'us-east-1' },
  });
  const bearer = { authorization: `Bearer ${account.token}` };
  const key = { 'x-api-key': apiKey };
  const { result: rows, peakMb } = await peakRssDuring(serve.pid, () =>
    runRounds([
      { name: 'node:http hello (baseline)', url: hello.bare.url, pid: hello.bare.pid, path: '/' },
      { name: 'express hello (reference)', url: hello.express.url, pid: hello.express.pid, path: '/' },
      { name: 'GET /health', url: serve.url, pid: serve.pid, path: '/health' },
      {
        name: 'GET /v1/auth/me (bearer)',
        url: serve.url,
        pid: serve.pid,
        path: '/v1/auth/me',
        headers: bearer,
      },
      {
        name: 'GET /v1/auth/me (API key)',
        url: serve.url,
        pid: serve.pid,
        path: '/v1/auth/me',
        headers: key,
      },
      {
        name: 'GET /api/v1/vpcs/:id (API key)',
        url: serve.url,
        pid: serve.pid,
        path: `/api/v1/vpcs/${vpc.id}`,
        headers: key,
      },
      {
        name: 'GET unknown route (404)',
        url: serve.url,
        pid: serve.pid,
        path: '/api/v1/nothing',
        status: 404,
      },
    ]),
  );
  console.table(rows);
  console.log(`start-up to /health 200: ${(serve.startupMs / 1000).toFixed(2)} s`);
  console.log(
    `peak RSS of cloudplane serve under the load: ${peakMb} MB (since start: ${serve.highWaterMb()} MB)`,
  );
});
