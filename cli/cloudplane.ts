#!/usr/bin/env node
import module from 'node:module';
import { ConfigError } from '../config/env.js';
import { loadConfig } from '../config/index.js';
import { createLogger } from '../observability/logger.js';
import type { RunningPlatform } from './serve.js';

const USAGE = `usage: cloudplane <command>

server commands (configuration comes from the environment; see the README):
  serve          REST API, controllers and scheduled jobs in one process (embedded mode, the default)
  operator       cluster mode: the controllers, on the replica that holds the leader Lease
  apiserver      cluster mode: the REST API over the Kubernetes API and PostgreSQL
  job <name>     run one scheduled job now and exit (what the CronJobs run)
  help           show this text`;

const SERVER_COMMANDS = ['serve', 'operator', 'apiserver', 'job'];

async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    const { clientCommandList } = await import('../client/program.js');
    process.stdout.write(
      `${USAGE}\n\nclient commands (cloudplane <command> --help for each):\n${clientCommandList()}\n`,
    );
    return 0;
  }
  // Every other command is the client's, which speaks to a platform over its REST API.
  if (!SERVER_COMMANDS.includes(command)) {
    const { runClient } = await import('../client/program.js');
    return runClient(argv);
  }

  enableCompileCache();
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`cloudplane: invalid configuration: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const logger = createLogger(config.process.logLevel);

  try {
    switch (command) {
      case 'serve': {
        const { serveEmbedded } = await import('./serve.js');
        const platform = await serveEmbedded(config, logger);
        await untilSignal(platform, logger);
        return 0;
      }
      case 'operator': {
        const { runOperator } = await import('./operator.js');
        await untilSignal(await runOperator(config, logger), logger);
        return 0;
      }
      case 'apiserver': {
        const { serveApiserver } = await import('./apiserver.js');
        await untilSignal(await serveApiserver(config, logger), logger);
        return 0;
      }
      case 'job': {
        const { runJobCommand } = await import('./job.js');
        return runJobCommand(rest[0], config, logger);
      }
      default:
        throw new Error(`${command} is listed as a server command but has no case`);
    }
  } catch (error) {
    // A setting only one command needs is checked when that command starts.
    if (error instanceof ConfigError) {
      process.stderr.write(`cloudplane: invalid configuration: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}

/**
 * Node 22.1 and later keep V8's compiled code of the modules on disk, so later start-ups skip
 * compiling the server's thousand modules again; node 20 has no such cache and starts as before.
 */
function enableCompileCache(): void {
  const { enableCompileCache: enable } = module as { enableCompileCache?: () => unknown };
  enable?.();
}

/** Stops gracefully on the first SIGINT or SIGTERM; a second one exits at once. */
function untilSignal(platform: RunningPlatform, logger: ReturnType<typeof createLogger>): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) process.exit(130);
      stopping = true;
      logger.info({ signal }, 'shutting down');
      platform.stop().then(resolve, (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exitCode = 1;
        resolve();
      });
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`cloudplane: ${message}\n`);
    process.exitCode = 1;
  },
);
