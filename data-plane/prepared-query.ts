import { CompiledQuery, PostgresAdapter, type Compilable, type Kysely } from 'kysely';
import { nameStatement } from './postgres.js';
import type { DataPlaneSchema } from './schema.js';

type Database = Kysely<DataPlaneSchema>;

/** How a compiled query's parameters are filled: from the call's arguments, or as compiled. */
interface Compiled {
  sql: string;
  parameters: readonly ({ argument: number } | { constant: unknown })[];
}

const marker = (index: number) => `\u0000prepared-query-argument-${index}\u0000`;

/**
 * Runs a read-only statement on the spot and answers its rows, or answers undefined when it cannot
 * (the connection is busy, the statement writes), leaving the statement to Kysely.
 */
export type DirectRead = (sql: string, parameters: readonly unknown[]) => unknown[] | undefined;

/** The direct reads of the databases that have one (the embedded SQLite data plane's), by database. */
const directReads = new WeakMap<Database, DirectRead>();

/**
 * Lets prepared queries on `db` (not on its transactions, which hold their connection) read
 * through `read` rather than through Kysely's executor.
 */
export function readDirectly(db: Database, read: DirectRead): void {
  directReads.set(db, read);
}

/**
 * A query built and compiled once per SQL dialect and then run with each call's arguments:
 * building and compiling a Kysely query costs more than SQLite takes to answer a small one, and
 * the hottest queries (a request's user and memberships, a vault read's rows and audit entry) run
 * on every request. `build` is called once, with marker values for the arguments; it must put each
 * where a value goes (a comparison, an inserted value), never where it decides the query's shape
 * (an optional clause, a list whose length varies), and must not read them.
 */
export function preparedQuery<Row, Args extends readonly unknown[]>(
  build: (db: Database, ...args: Args) => Compilable<Row>,
): (db: Database, ...args: Args) => Promise<Row[]> {
  // By the dialect's adapter, which a database and its transactions share.
  const byDialect = new WeakMap<object, Compiled>();
  const compile = (db: Database, arity: number): Compiled => {
    const markers = Array.from({ length: arity }, (_, index) => marker(index));
    const query = build(db, ...(markers as unknown as Args)).compile();
    const parameters = query.parameters.map((value) => {
      const argument = typeof value === 'string' ? markers.indexOf(value) : -1;
      return argument === -1 ? { constant: value } : { argument };
    });
    const used = new Set(
      parameters.flatMap((parameter) => ('argument' in parameter ? [parameter.argument] : [])),
    );
    if (used.size !== arity) throw new Error(`a prepared query uses ${used.size} of its ${arity} arguments`);
    // A server-side prepared statement on PostgreSQL; SQLite's driver keeps its own by text.
    if (db.getExecutor().adapter instanceof PostgresAdapter) nameStatement(query.sql);
    return { sql: query.sql, parameters };
  };
  return async (db, ...args) => {
    const dialect = db.getExecutor().adapter;
    let compiled = byDialect.get(dialect);
    if (!compiled) {
      compiled = compile(db, args.length);
      byDialect.set(dialect, compiled);
    }
    const parameters = compiled.parameters.map((parameter) =>
      'argument' in parameter ? args[parameter.argument] : parameter.constant,
    );
    const read = directReads.get(db)?.(compiled.sql, parameters);
    if (read) return read as Row[];
    const { rows } = await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, parameters));
    return rows;
  };
}
