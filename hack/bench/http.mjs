// Throughput of the REST facade as `cloudplane serve` runs it, as ratios to a bare node:http hello
// server measured in the same interleaved rounds; Express's own hello world for reference;
// start-up time to the first `/health` 200, idle RSS, and the server's peak RSS (the kernel's
// VmHWM, set back after the set-up's password hashing) over the whole mixed load, transit encrypt
// POSTs included; the server's CPU time and heap allocation per request for each target.
//
//   npm run bench:http                                # builds, then 3 rounds of 4 s per target
//   BENCH_ROUNDS=5 BENCH_DURATION=10 npm run bench:http
//   BENCH_BEFORE=/tmp/before npm run bench:http       # also the server of a checkout built there
//       (see harness.mjs), its targets interleaved with this build's in the same rounds
import { BEFORE, BEFORE_ROOT, comparedWithBefore } from './harness.mjs';
import {
  PLAINTEXT,
  benchAccount,
  benchVault,
  benchVpcAndKey,
  runRounds,
  startServe,
  withServers,
} from './rounds.mjs';

/** A user, an API key, a VPC and an auto-unsealed vault on `serve`; answers its targets. */
async function targetsOf(serve, prefix) {
  const idleMb = serve.rssMb();
  const account = await benchAccount(serve.url);
  const { apiKey, vpc } = await benchVpcAndKey(account);
  const vault = await benchVault(account);
  const bearer = { authorization: `Bearer ${account.token}` };
  const key = { 'x-api-key': apiKey };
  const server = { url: serve.url, pid: serve.pid, allocatedBytes: () => serve.allocatedBytes() };
  serve.resetHighWater();
  const targets = [
    { name: 'GET /health', path: '/health' },
    { name: 'GET /v1/auth/me (bearer)', path: '/v1/auth/me', headers: bearer },
    { name: 'GET /v1/auth/me (API key)', path: '/v1/auth/me', headers: key },
    { name: 'GET /api/v1/vpcs/:id (API key)', path: `/api/v1/vpcs/${vpc.id}`, headers: key },
    { name: 'GET unknown route (404)', path: '/api/v1/nothing', status: 404 },
    {
      name: 'POST transit encrypt (1 KiB)',
      method: 'POST',
      path: `/api/v1/vault/${vault.id}/encrypt/bench`,
      headers: bearer,
      body: { plaintext: PLAINTEXT },
    },
  ].map((target) => ({ ...server, ...target, name: `${prefix}${target.name}` }));
  return { targets, idleMb };
}

/** What this build answers over what the build beside answered, per target. */
function comparison(rows) {
  const byName = new Map(rows.map((row) => [row.target, row]));
  return comparedWithBefore([...byName.keys()]).map(([now, before]) => {
    const [after, was] = [byName.get(now), byName.get(before)];
    return {
      target: now,
      'req/s now/before': Number((after['req/s'] / was['req/s']).toFixed(2)),
      'ratio to bare now': after['ratio to bare'],
      'ratio to bare before': was['ratio to bare'],
      'CPU µs/req now/before': `${after['server CPU µs/req']}/${was['server CPU µs/req']}`,
      'heap KB/req now/before': `${after['heap KB/req']}/${was['heap KB/req']}`,
    };
  });
}

await withServers(async ({ hello, serve }) => {
  const beside = BEFORE_ROOT ? await startServe({ checkout: BEFORE_ROOT }) : undefined;
  try {
    const now = await targetsOf(serve, '');
    const before = beside ? await targetsOf(beside, BEFORE) : undefined;
    // Each of this build's targets, then the build beside's same target, so both see the same moments.
    const paired = now.targets.flatMap((target, index) => [
      target,
      ...(before ? [before.targets[index]] : []),
    ]);
    const rows = await runRounds([
      { name: 'node:http hello (baseline)', url: hello.bare.url, pid: hello.bare.pid, path: '/' },
      { name: 'express hello (reference)', url: hello.express.url, pid: hello.express.pid, path: '/' },
      ...paired,
    ]);
    console.table(rows);
    if (beside) console.table(comparison(rows));
    for (const [label, server, figures] of [
      ['this build', serve, now],
      ...(beside ? [['the build beside', beside, before]] : []),
    ]) {
      console.log(
        `${label}: start-up to /health 200 ${(server.startupMs / 1000).toFixed(2)} s; idle RSS ` +
          `${figures.idleMb} MB; peak RSS over the mixed load ${server.highWaterMb()} MB`,
      );
    }
  } finally {
    await beside?.stop();
  }
});
