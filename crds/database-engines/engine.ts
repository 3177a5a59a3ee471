/**
 * What the platform knows of a database engine whatever runs it: its names, the versions it
 * offers, how it is sized, its port and what a runtime without a server for it answers. The local
 * server and the Kubernetes rendering of an engine live with their runtime, keyed by `name`.
 */
export interface DatabaseEngine {
  /** The name databases are kept under (`spec.engine`, the REST `engine`). */
  name: string;
  /** What actually runs: the `mysql` engine is MariaDB. */
  product: string;
  /** Other names a request may give the engine; the database is kept under the engine's own name. */
  aliases: readonly string[];
  /** The major versions offered, oldest first. */
  versions: readonly string[];
  /** What a database asked without a version runs on the local runtime. */
  defaultVersion: string;
  /** The size a database of the engine takes: storage in GB, or memory in MiB. */
  sizedBy: 'storage' | 'memory';
  /** The port its server listens on in a cluster. */
  port: number;
  /**
   * Why the local runtime only records a database of this engine (nothing runs), when it does:
   * the REST API shows such a database as recorded until the runtime has answered.
   */
  recordedLocally?: string;
}
