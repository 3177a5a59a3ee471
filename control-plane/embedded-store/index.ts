/** The embedded backend of `ObjectStore`: the Kubernetes resource model on a SQLite file. */
export {
  EmbeddedStore,
  openEmbeddedStore,
  type EmbeddedStoreOptions,
  type EmbeddedWriteOptions,
  type FieldValidation,
} from './sqlite-store.js';
export { ForeignCommits } from './foreign-commits.js';
export { WalSync } from './wal-sync.js';
export { openSqliteFile, PAGE_CACHE_KIB, type SqliteFile, type SqliteFileOptions } from './sqlite-file.js';
