import type { WorkloadsConfig } from '../../config/workloads.js';
import type { Logger } from '../../observability/logger.js';
import type { DatabaseRuntime } from '../runtime.js';

/** What each local engine is built with. */
export interface LocalEngineOptions {
  config: WorkloadsConfig;
  logger: Logger;
}

/** One engine of the local runtime; `close` stops what it started in this process. */
export interface LocalEngine extends DatabaseRuntime {
  close(): Promise<void>;
}
