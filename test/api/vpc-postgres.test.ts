import { afterAll, beforeAll, expect, it } from 'vitest';
import { registerAndSignIn, type TestAccount } from '../fixtures/accounts-app.js';
import {
  createTestPostgresDatabase,
  describeWithPostgres,
  type TestPostgresDatabase,
} from '../fixtures/db-postgres.js';
import { eventually } from '../fixtures/eventually.js';
import { startPlatform, type TestPlatform } from '../fixtures/platform.js';

const LIMIT = 3;

describeWithPostgres('VPC overlap and limit checks on PostgreSQL', () => {
  let postgres: TestPostgresDatabase;
  let app: TestPlatform;

  beforeAll(async () => {
    postgres = (await createTestPostgresDatabase())!;
    app = await startPlatform({ databaseUrl: postgres.url, env: { CLOUDPLANE_VPC_LIMIT: String(LIMIT) } });
  });
  afterAll(async () => {
    await app?.close();
    await postgres?.drop();
  });

  const createVpc = async (account: TestAccount, cidr: string, name: string) => {
    const response = await app.call('POST', '/api/v1/vpcs', {
      token: account.token,
      body: { name, cidr_block: cidr, region: 'us-east-1' },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  const claimsOf = async (kind: 'Vpc' | 'Subnet') =>
    app.database.kysely.selectFrom('vpc_cidr_claims').selectAll().where('kind', '=', kind).execute();

  it('lets exactly one of many racing overlapping creates win, answering 409 to the rest', async () => {
    const owner = await registerAndSignIn(app);
    const racers = 12;
    const results = await Promise.all(
      Array.from({ length: racers }, (_, index) =>
        createVpc(owner, `10.30.0.0/${16 + (index % 8)}`, `racer-${index}`),
      ),
    );
    const winners = results.filter((result) => result.status === 201);
    expect(winners).toHaveLength(1);
    const losers = results.filter((result) => result.status === 409);
    expect(losers).toHaveLength(racers - 1);
    const winner = winners[0]!.body as { id: string; name: string };
    for (const loser of losers) {
      expect((loser.body.error as { message: string }).message).toContain(`"${winner.name}" (${winner.id})`);
    }
    expect((await claimsOf('Vpc')).map((claim) => claim.resource_id)).toEqual([winner.id]);
  });

  it('holds the VPC limit when creates race, answering 429 naming the limit to the rest', async () => {
    const owner = await registerAndSignIn(app);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) => createVpc(owner, `10.${100 + index}.0.0/16`, `vpc-${index}`)),
    );
    expect(results.filter((result) => result.status === 201)).toHaveLength(LIMIT);
    const refused = results.filter((result) => result.status === 429);
    expect(refused).toHaveLength(8 - LIMIT);
    for (const result of refused) {
      expect((result.body.error as { message: string }).message).toContain(`${LIMIT} VPCs, the limit`);
    }
  });

  it('keeps organizations apart: the same block and the full limit for another organization', async () => {
    const other = await registerAndSignIn(app, 'Grace Hopper');
    const results = await Promise.all([
      createVpc(other, '10.30.0.0/16', 'same-block'),
      createVpc(other, '10.100.0.0/16', 'second'),
      createVpc(other, '10.101.0.0/16', 'third'),
    ]);
    expect(results.map((result) => result.status)).toEqual([201, 201, 201]);
  });

  it('frees the block and the quota slot once a deleted VPC is gone', async () => {
    const owner = await registerAndSignIn(app, 'Edsger Dijkstra');
    const ids: string[] = [];
    for (const index of [1, 2, 3]) {
      const created = await createVpc(owner, `10.${index}.0.0/16`, `vpc-${index}`);
      expect(created.status).toBe(201);
      ids.push(created.body.id as string);
    }
    expect((await createVpc(owner, '10.9.0.0/16', 'over')).status).toBe(429);
    await eventually(async () => {
      const detail = await app.call('GET', `/api/v1/vpcs/${ids[0]!}`, { token: owner.token });
      expect(((await detail.json()) as { status: string }).status).toBe('available');
    });
    expect((await app.call('DELETE', `/api/v1/vpcs/${ids[0]!}`, { token: owner.token })).status).toBe(204);
    await eventually(async () => {
      const detail = await app.call('GET', `/api/v1/vpcs/${ids[0]!}`, { token: owner.token });
      expect(((await detail.json()) as { status: string }).status).toBe('deleted');
    });
    expect((await createVpc(owner, '10.1.0.0/16', 'reuse')).status).toBe(201);
  });
});
