import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDataPlane, type DataPlane } from '../../data-plane/data-plane.js';
import { DataPlaneOpenError } from '../../data-plane/data-plane-open-error.js';
import type { DataPlaneSchema } from '../../data-plane/schema.js';
import { createLogger } from '../../observability/logger.js';
import { describeDataPlaneContract, type DatabaseTarget } from './data-plane.contract.js';

async function sqliteTarget(): Promise<DatabaseTarget> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-db-'));
  return {
    options: { sqlitePath: path.join(dir, 'nested', 'cloudplane.db') },
    dispose: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

describeDataPlaneContract('DataPlane on SQLite', sqliteTarget);

describe('DataPlane on SQLite, dialect specifics', () => {
  const logger = createLogger('silent');
  let target: DatabaseTarget | undefined;

  afterEach(async () => {
    await target?.dispose();
  });

  it('opens the file with write-ahead logging (commits flushed before they are answered), a busy timeout and no pg pool', async () => {
    target = await sqliteTarget();
    const database = await openDataPlane({ ...target.options, logger });
    try {
      const pragma = async (name: string): Promise<unknown> =>
        Object.values((await sql.raw(`pragma ${name}`).execute(database.kysely)).rows[0] as object)[0];
      expect(await pragma('journal_mode')).toBe('wal');
      // NORMAL: the driver flushes the WAL itself, off the event loop, before a commit is answered.
      expect(await pragma('synchronous')).toBe(1);
      expect(await pragma('busy_timeout')).toBeGreaterThan(0);
      expect(database.dialect).toBe('sqlite');
      expect(database.pgPool).toBeUndefined();
    } finally {
      await database.close();
    }
  });

  describe('transactions committed in groups', () => {
    type Notes = { group_notes: { id: string; body: string } };
    let database: DataPlane;
    let notes: Kysely<DataPlaneSchema & Notes>;
    /** A second connection to the file: it sees only what was committed. */
    let outside: SQLite.Database;
    const committed = () =>
      (outside.prepare('select id from group_notes order by id').all() as { id: string }[]).map(
        (row) => row.id,
      );

    beforeEach(async () => {
      target = await sqliteTarget();
      database = await openDataPlane({ ...target.options, logger });
      notes = database.kysely.withTables<Notes>();
      await notes.schema
        .createTable('group_notes')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('body', 'text', (column) => column.notNull())
        .execute();
      outside = new SQLite(target.options.sqlitePath);
    });

    afterEach(async () => {
      outside.close();
      await database.close();
    });

    const write = (id: string) =>
      notes.transaction().execute(async (trx) => {
        await trx
          .insertInto('group_notes')
          .values({ id, body: 'x'.repeat(200) })
          .execute();
        return id;
      });

    it('answers a transaction only once its writes are committed, seen from another connection', async () => {
      const seenAtAnswer = await Promise.all(
        ['a', 'b', 'c'].map(async (id) => {
          await write(id);
          return committed().includes(id);
        }),
      );
      expect(seenAtAnswer).toEqual([true, true, true]);
    });

    it('commits transactions that run at once together: fewer WAL frames than one commit each', async () => {
      const walFrames = () => (outside.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log;
      walFrames();
      await Promise.all(
        Array.from({ length: 20 }, (_, index) => write(`note-${String(index).padStart(2, '0')}`)),
      );
      // One commit each would write at least the table's leaf page twenty times.
      expect(walFrames()).toBeLessThan(20);
      expect(committed()).toHaveLength(20);
    });

    it('undoes only the transaction that failed; the others of its group commit', async () => {
      const outcomes = await Promise.allSettled([
        write('kept-1'),
        notes.transaction().execute(async (trx) => {
          await trx.insertInto('group_notes').values({ id: 'undone', body: 'x' }).execute();
          throw new Error('the work failed after writing');
        }),
        write('kept-2'),
        // A duplicate key: the statement fails inside the open transaction.
        write('kept-1'),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'rejected',
      ]);
      expect(committed()).toEqual(['kept-1', 'kept-2']);
    });

    it('answers a read that ran inside an open group only once that group is committed', async () => {
      const writing = write('pending');
      // Queued behind the write: it runs while the group is open and may see the write.
      const read = await notes.selectFrom('group_notes').select('id').execute();
      expect(read.map((row) => row.id)).toEqual(['pending']);
      expect(committed()).toEqual(['pending']);
      await writing;
    });

    it("moves its commit mark with every commit, its own at once and another connection's by the next turn", async () => {
      const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
      const start = database.commitMark();
      expect(start).toBeTypeOf('number');
      await notes.selectFrom('group_notes').selectAll().execute();
      await nextTurn();
      expect(database.commitMark()).toBe(start);

      await write('marked');
      const afterTransaction = database.commitMark()!;
      expect(afterTransaction).toBeGreaterThan(start!);
      await notes.deleteFrom('group_notes').where('id', '=', 'marked').execute();
      const afterStatement = database.commitMark()!;
      expect(afterStatement).toBeGreaterThan(afterTransaction);

      outside.prepare("insert into group_notes (id, body) values ('outside', 'x')").run();
      await nextTurn();
      expect(database.commitMark()).toBeGreaterThan(afterStatement);
    });

    it('commits what is open before the database closes', async () => {
      const writing = write('last');
      await database.close();
      await writing;
      expect(committed()).toEqual(['last']);
      database = await openDataPlane({ ...target!.options, logger });
    });
  });

  it('fails with an error naming the path when the file cannot be opened', async () => {
    target = await sqliteTarget();
    const blocker = path.join(path.dirname(path.dirname(target.options.sqlitePath)), 'a-file');
    fs.mkdirSync(path.dirname(blocker), { recursive: true });
    fs.writeFileSync(blocker, 'not a directory');
    const sqlitePath = path.join(blocker, 'cloudplane.db');

    const failure = openDataPlane({ sqlitePath, logger });
    await expect(failure).rejects.toBeInstanceOf(DataPlaneOpenError);
    await expect(failure).rejects.toThrow(`cannot open the SQLite database at ${sqlitePath}`);
  });
});
