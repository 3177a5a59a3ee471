import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDataPlane } from '../../data-plane/data-plane.js';
import { DataPlaneOpenError } from '../../data-plane/data-plane-open-error.js';
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
