import fs from 'node:fs';
import type { Config } from '../config/index.js';
import { openDataPlane } from '../data-plane/data-plane.js';
import { JOBS } from '../jobs/index.js';
import { runJobByName } from '../jobs/scheduler.js';
import type { Logger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { dataPlanePath } from './serve.js';

/** `cloudplane job <name>`: one run, recorded like a scheduled one; the exit code tells the CronJob. */
export async function runJobCommand(
  name: string | undefined,
  config: Config,
  logger: Logger,
): Promise<number> {
  if (!name) {
    process.stderr.write(`cloudplane job: name a job: ${JOBS.map((job) => job.name).join(', ')}\n`);
    return 2;
  }
  const { databaseUrl, dataDir } = config.process;
  if (!databaseUrl) fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const metrics = createMetrics({ processMetrics: false });
  const database = await openDataPlane({
    url: databaseUrl,
    sqlitePath: dataPlanePath(config.process),
    logger,
    metrics,
  });
  try {
    const run = await runJobByName(name, { database, config: config.jobs, logger, metrics });
    process.stdout.write(`${JSON.stringify(run)}\n`);
    return run.outcome === 'succeeded' ? 0 : 1;
  } finally {
    await database.close();
  }
}
