import type BetterSqlite3 from 'better-sqlite3';
import { ForeignCommits } from './foreign-commits.js';
import { RowCache } from './row-cache.js';

/**
 * The embedded store's tables and the statements over them, prefixed `store_` so the file may be
 * shared with other owners' tables; creation is idempotent and runs at every open. Reads outside
 * transactions (rows, the revision) go through a `RowCache`, which every write here updates.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS store_meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) STRICT;
INSERT OR IGNORE INTO store_meta (key, value) VALUES ('revision', 0), ('compacted', 0);
CREATE TABLE IF NOT EXISTS store_objects (
  resource TEXT NOT NULL,
  namespace TEXT NOT NULL,
  name TEXT NOT NULL,
  uid TEXT NOT NULL UNIQUE,
  resource_version INTEGER NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (resource, namespace, name)
) STRICT;
CREATE TABLE IF NOT EXISTS store_owner_refs (
  owner_uid TEXT NOT NULL,
  dependent_uid TEXT NOT NULL REFERENCES store_objects (uid) ON DELETE CASCADE,
  blocks_owner_deletion INTEGER NOT NULL,
  PRIMARY KEY (owner_uid, dependent_uid)
) STRICT;
CREATE INDEX IF NOT EXISTS store_owner_refs_dependent ON store_owner_refs (dependent_uid);
CREATE TABLE IF NOT EXISTS store_events (
  resource_version INTEGER PRIMARY KEY,
  resource TEXT NOT NULL,
  namespace TEXT NOT NULL,
  type TEXT NOT NULL,
  body TEXT NOT NULL,
  previous_labels TEXT
) STRICT;
`;

export interface ObjectRow {
  resource: string;
  namespace: string;
  name: string;
  uid: string;
  resource_version: number;
  body: string;
}

/** Which object a row is, for writes by uid that must also say what they changed. */
export type ObjectKey = Pick<ObjectRow, 'resource' | 'namespace' | 'name' | 'uid'>;

export interface EventRow {
  resource_version: number;
  resource: string;
  namespace: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  body: string;
  previous_labels: string | null;
}

export interface OwnerLink {
  ownerUid: string;
  blocksOwnerDeletion: boolean;
}

/** Typed access to the store's tables; every method is one statement, run inside the caller's transaction. */
export class StoreTables {
  private readonly statements;
  private readonly cache: RowCache<ObjectRow>;

  constructor(private readonly db: BetterSqlite3.Database) {
    db.exec(SCHEMA);
    this.statements = {
      meta: db.prepare<[string], { value: number }>('SELECT value FROM store_meta WHERE key = ?'),
      setMeta: db.prepare<[number, string]>('UPDATE store_meta SET value = ? WHERE key = ?'),
      bumpRevision: db.prepare<[], { value: number }>(
        "UPDATE store_meta SET value = value + 1 WHERE key = 'revision' RETURNING value",
      ),
      find: db.prepare<[string, string, string], ObjectRow>(
        'SELECT * FROM store_objects WHERE resource = ? AND namespace = ? AND name = ?',
      ),
      findByUid: db.prepare<[string], ObjectRow>('SELECT * FROM store_objects WHERE uid = ?'),
      insert: db.prepare<[string, string, string, string, number, string]>(
        'INSERT INTO store_objects (resource, namespace, name, uid, resource_version, body) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      update: db.prepare<[number, string, string]>(
        'UPDATE store_objects SET resource_version = ?, body = ? WHERE uid = ?',
      ),
      remove: db.prepare<[string]>('DELETE FROM store_objects WHERE uid = ?'),
      listAll: db.prepare<[string, string, string], ObjectRow>(
        'SELECT * FROM store_objects WHERE resource = ? AND (namespace, name) > (?, ?) ORDER BY namespace, name',
      ),
      listNamespace: db.prepare<[string, string, string], ObjectRow>(
        'SELECT * FROM store_objects WHERE resource = ? AND namespace = ? AND name > ? ORDER BY name',
      ),
      clearOwners: db.prepare<[string]>('DELETE FROM store_owner_refs WHERE dependent_uid = ?'),
      addOwner: db.prepare<[string, string, number]>(
        'INSERT OR REPLACE INTO store_owner_refs (owner_uid, dependent_uid, blocks_owner_deletion) VALUES (?, ?, ?)',
      ),
      dependents: db.prepare<[string], ObjectRow>(
        `SELECT o.* FROM store_owner_refs r JOIN store_objects o ON o.uid = r.dependent_uid
         WHERE r.owner_uid = ? ORDER BY o.resource, o.namespace, o.name`,
      ),
      blockingDependent: db.prepare<[string], { found: number }>(
        'SELECT 1 AS found FROM store_owner_refs WHERE owner_uid = ? AND blocks_owner_deletion = 1 LIMIT 1',
      ),
      addEvent: db.prepare<[number, string, string, string, string, string | null]>(
        'INSERT INTO store_events (resource_version, resource, namespace, type, body, previous_labels) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      compact: db.prepare<[number]>('DELETE FROM store_events WHERE resource_version <= ?'),
      eventsAll: db.prepare<[string, number, number, number], EventRow>(
        `SELECT * FROM store_events WHERE resource = ? AND resource_version > ? AND resource_version <= ?
         ORDER BY resource_version LIMIT ?`,
      ),
      eventsNamespace: db.prepare<[string, string, number, number, number], EventRow>(
        `SELECT * FROM store_events WHERE resource = ? AND namespace = ? AND resource_version > ?
         AND resource_version <= ? ORDER BY resource_version LIMIT ?`,
      ),
      ping: db.prepare<[], { one: number }>('SELECT 1 AS one'),
    };
    this.cache = new RowCache(new ForeignCommits(db));
  }

  revision(): number {
    if (this.db.inTransaction) return this.readRevision();
    const cached = this.cache.revision();
    if (cached !== undefined) return cached;
    const revision = this.readRevision();
    this.cache.rememberRevision(revision);
    return revision;
  }

  private readRevision(): number {
    return this.statements.meta.get('revision')?.value ?? 0;
  }

  /** The newest revision whose event has been dropped from the history; watches must start after it. */
  compactedRevision(): number {
    return this.statements.meta.get('compacted')?.value ?? 0;
  }

  nextRevision(): number {
    this.cache.revisionMoved();
    const row = this.statements.bumpRevision.get();
    if (!row) throw new Error('store_meta has no revision row');
    return row.value;
  }

  /** Drops events at or below `revision` from the history. */
  compactThrough(revision: number): void {
    if (revision <= this.compactedRevision()) return;
    this.statements.compact.run(revision);
    this.statements.setMeta.run(revision, 'compacted');
  }

  find(resource: string, namespace: string, name: string): ObjectRow | undefined {
    // Inside a transaction the rows it wrote are not the file's yet: read them, never hold them.
    if (this.db.inTransaction) return this.statements.find.get(resource, namespace, name);
    const cached = this.cache.object(resource, namespace, name);
    if (cached) return cached;
    const row = this.statements.find.get(resource, namespace, name);
    if (row) this.cache.rememberObject(row);
    return row;
  }

  /** Every object of a resource in a namespace, in name order; read outside transactions only. */
  namespaceRows(resource: string, namespace: string): readonly ObjectRow[] {
    if (this.db.inTransaction)
      throw new Error('namespaceRows reads committed rows: call it outside a transaction');
    const cached = this.cache.namespace(resource, namespace);
    if (cached) return cached;
    const rows = this.statements.listNamespace.all(resource, namespace, '');
    this.cache.rememberNamespace(resource, namespace, rows);
    return rows;
  }

  findByUid(uid: string): ObjectRow | undefined {
    return this.statements.findByUid.get(uid);
  }

  insert(row: ObjectRow): void {
    const { resource, namespace, name, uid, resource_version: revision, body } = row;
    this.cache.changed(resource, namespace, name);
    this.statements.insert.run(resource, namespace, name, uid, revision, body);
  }

  update(key: ObjectKey, revision: number, body: string): void {
    this.cache.changed(key.resource, key.namespace, key.name);
    this.statements.update.run(revision, body, key.uid);
  }

  remove(key: ObjectKey): void {
    this.cache.changed(key.resource, key.namespace, key.name);
    this.statements.remove.run(key.uid);
  }

  /**
   * Objects of a resource after the (namespace, name) key, in key order; lazily, so a page reads
   * only what it needs. Within one namespace only the name part of the key counts.
   */
  iterate(resource: string, namespace: string | undefined, after: { namespace: string; name: string }) {
    return namespace === undefined
      ? this.statements.listAll.iterate(resource, after.namespace, after.name)
      : this.statements.listNamespace.iterate(resource, namespace, after.name);
  }

  setOwners(dependentUid: string, owners: OwnerLink[]): void {
    this.statements.clearOwners.run(dependentUid);
    for (const owner of owners) {
      this.statements.addOwner.run(owner.ownerUid, dependentUid, owner.blocksOwnerDeletion ? 1 : 0);
    }
  }

  dependents(ownerUid: string): ObjectRow[] {
    return this.statements.dependents.all(ownerUid);
  }

  hasBlockingDependents(ownerUid: string): boolean {
    return this.statements.blockingDependent.get(ownerUid) !== undefined;
  }

  addEvent(event: EventRow): void {
    const { resource_version: revision, resource, namespace, type, body, previous_labels: labels } = event;
    this.statements.addEvent.run(revision, resource, namespace, type, body, labels);
  }

  events(
    resource: string,
    namespace: string | undefined,
    after: number,
    until: number,
    limit: number,
  ): EventRow[] {
    return namespace === undefined
      ? this.statements.eventsAll.all(resource, after, until, limit)
      : this.statements.eventsNamespace.all(resource, namespace, after, until, limit);
  }

  ping(): void {
    this.statements.ping.get();
  }
}
