import { afterEach, beforeEach, expect, it } from 'vitest';
import { publishEvent } from '../../integrations/events/publisher.js';
import {
  createTestPostgresDatabase,
  describeWithPostgres,
  type TestPostgresDatabase,
} from '../fixtures/db-postgres.js';
import { startEventReceiver, type EventReceiver } from '../fixtures/event-receiver.js';
import { startEventPlatform, type EventPlatform } from '../fixtures/event-receiver-platform.js';

describeWithPostgres('event delivery on PostgreSQL', () => {
  let postgres: TestPostgresDatabase;
  let platform: EventPlatform;
  let receiver: EventReceiver;

  beforeEach(async () => {
    postgres = (await createTestPostgresDatabase())!;
    platform = await startEventPlatform({ databaseUrl: postgres.url });
    receiver = await startEventReceiver();
  });

  afterEach(async () => {
    await platform.close();
    await receiver.close();
    await postgres.drop();
  });

  it('never lets workers on separate connections send the same event', async () => {
    await platform.addIntegration(
      { type: 'chat', name: 'chat', configuration: { channels: { deployments: '#d' } } },
      { webhook_url: `${receiver.url}/hook` },
    );
    const deps = { database: platform.database, store: platform.store, now: () => platform.clock.now() };
    const eventIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      eventIds.push(
        ...(await publishEvent(deps, {
          organizationId: platform.organizationId,
          type: 'vpc.created',
          subject: `vpc-${i}`,
          payload: {},
        })),
      );
    }
    const workers = [platform.startWorker(), platform.startWorker(), platform.startWorker()];

    const sent = await Promise.all(workers.map((worker) => worker.runOnce()));
    await Promise.all(workers.map((worker) => worker.runOnce()));

    expect(sent.reduce((sum, count) => sum + count, 0)).toBe(20);
    expect(receiver.requests.map((request) => request.headers['webhook-id']).sort()).toEqual(eventIds.sort());
  });
});
