import type SQLite from 'better-sqlite3';
import { ForeignCommits, openSqliteFile, type WalSync } from '../control-plane/embedded-store/index.js';
import {
  SqliteAdapter,
  SqliteDialect,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type SqliteDialectConfig,
} from 'kysely';
import type { DirectRead } from './prepared-query.js';
import { CommitMark, GroupCommitSqliteDriver } from './sqlite-driver.js';

/** Distinct SQL texts kept prepared; the data plane issues a few hundred at most. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * The connection as Kysely sees it, with prepared statements kept for reuse: Kysely prepares
 * every query afresh, a measurable share of each request. Kysely's driver runs one query at a
 * time on its single connection, so a cached statement is never in use twice at once.
 */
function withStatementCache(connection: SQLite.Database) {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => connection.close(),
    prepare(sql: string): SQLite.Statement {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = connection.prepare(sql);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      }
      statements.set(sql, statement);
      return statement;
    },
  };
}

/**
 * SQLite runs DDL inside transactions; Kysely's adapter declines only to stay conservative. Saying so
 * makes the migrator apply a batch in one immediate transaction: atomic, and serialised against another
 * process migrating the same file.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

class DataPlaneSqliteDialect extends SqliteDialect {
  /** The driver Kysely made of this dialect: one per Kysely instance, which makes it once. */
  driver: GroupCommitSqliteDriver | undefined;

  constructor(
    private readonly config: SqliteDialectConfig,
    private readonly connection: SQLite.Database,
    private readonly statement: (sql: string) => SQLite.Statement,
    private readonly walSync: WalSync,
    private readonly mark: CommitMark,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    this.driver = new GroupCommitSqliteDriver(
      this.config,
      this.connection,
      this.statement,
      this.walSync,
      this.mark,
    );
    return this.driver;
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

/**
 * Opens the SQLite file as every file of the product is (`openSqliteFile`), a commit durable
 * before it is answered (see `GroupCommitSqliteDriver`); and the mark that moves with every
 * commit to it. The file may hold other owners' tables; nothing here touches them.
 */
export function openSqliteDialect(sqlitePath: string): {
  dialect: Dialect;
  commitMark: CommitMark;
  /** `GroupCommitSqliteDriver.readNow` of the driver made of `dialect`; undefined until one is. */
  readNow: DirectRead;
} {
  const { db: connection, walSync } = openSqliteFile(sqlitePath);
  const database = withStatementCache(connection);
  const commitMark = new CommitMark(new ForeignCommits(connection));
  const dialect = new DataPlaneSqliteDialect({ database }, connection, database.prepare, walSync, commitMark);
  return {
    dialect,
    commitMark,
    readNow: (sql, parameters) => dialect.driver?.readNow(sql, parameters),
  };
}
