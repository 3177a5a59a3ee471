import type { ForeignCommits } from './foreign-commits.js';
/** What the cache needs of a row: which object it is. */
interface KeyedRow {
  resource: string;
  namespace: string;
  name: string;
}

/** Rows of one resource in one namespace: objects by name, and all of them in name order. */
interface ScopeRows<Row> {
  byName: Map<string, Row>;
  all: readonly Row[] | undefined;
}

/** Past this many rows held, the cache starts over: a bound on memory, not an eviction policy. */
const MAX_ROWS = 10_000;

const scopeKey = (resource: string, namespace: string) => `${resource}\u0000${namespace}`;

/**
 * Rows as last read from the file, per resource and namespace: an object by name, and a whole
 * namespace in name order; and the store's revision. Reads of the API and the controllers ask for
 * the same few objects again and again, and a statement outside a transaction (a read lock taken
 * and let go, two B-trees walked, the body copied out) cost more than the rest of such a read. The store's own writes drop what they change; a commit by any other connection to
 * the file (its `data_version` moves) drops everything. Callers fill it only outside transactions,
 * so a row a transaction wrote and then rolled back is never held.
 */
export class RowCache<Row extends KeyedRow> {
  private readonly scopes = new Map<string, ScopeRows<Row>>();
  private rows = 0;
  private currentRevision: number | undefined;

  constructor(private readonly foreignCommits: ForeignCommits) {}

  object(resource: string, namespace: string, name: string): Row | undefined {
    this.dropIfChangedElsewhere();
    return this.scopes.get(scopeKey(resource, namespace))?.byName.get(name);
  }

  rememberObject(row: Row): void {
    this.scope(row.resource, row.namespace).byName.set(row.name, row);
    this.count(1);
  }

  namespace(resource: string, namespace: string): readonly Row[] | undefined {
    this.dropIfChangedElsewhere();
    return this.scopes.get(scopeKey(resource, namespace))?.all;
  }

  rememberNamespace(resource: string, namespace: string, rows: readonly Row[]): void {
    this.scope(resource, namespace).all = rows;
    this.count(rows.length);
  }

  /** The store's current revision, as last read; every write moves it. */
  revision(): number | undefined {
    this.dropIfChangedElsewhere();
    return this.currentRevision;
  }

  rememberRevision(revision: number): void {
    this.currentRevision = revision;
  }

  revisionMoved(): void {
    this.currentRevision = undefined;
  }

  /** An object was written: its row and its namespace's list are no longer what the file holds. */
  changed(resource: string, namespace: string, name: string): void {
    const scope = this.scopes.get(scopeKey(resource, namespace));
    if (!scope) return;
    scope.byName.delete(name);
    scope.all = undefined;
  }

  private scope(resource: string, namespace: string): ScopeRows<Row> {
    const key = scopeKey(resource, namespace);
    let scope = this.scopes.get(key);
    if (!scope) {
      scope = { byName: new Map(), all: undefined };
      this.scopes.set(key, scope);
    }
    return scope;
  }

  private count(rows: number): void {
    this.rows += rows;
    if (this.rows > MAX_ROWS) this.clear();
  }

  private dropIfChangedElsewhere(): void {
    if (this.foreignCommits.happened()) this.clear();
  }

  private clear(): void {
    this.scopes.clear();
    this.rows = 0;
    this.currentRevision = undefined;
  }
}
