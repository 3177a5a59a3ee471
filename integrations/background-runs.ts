import type { Logger } from '../observability/logger.js';

/**
 * Work the API starts and answers 202 for (integration tests, codehost syncs). Each run records
 * its own outcome; this only keeps the promises so a stopping process can wait for them.
 */
export class BackgroundRuns {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  start(name: string, run: () => Promise<void>): void {
    const promise = run()
      .catch((error: unknown) => {
        this.logger.error(
          { run: name, err: error instanceof Error ? error.message : String(error) },
          'run failed',
        );
      })
      .finally(() => this.running.delete(promise));
    this.running.add(promise);
  }

  /** Resolves once every run started so far has finished. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}
