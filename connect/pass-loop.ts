import type { Logger } from '../observability/logger.js';

/**
 * A level-based worker's heartbeat: runs `pass` every `intervalMs` and whenever woken, one pass at
 * a time; a wake during a pass runs another right after it, so no change waits for the next tick.
 * A failed pass is logged and the next one starts from scratch.
 */
export class PassLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly options: { intervalMs: number; logger: Logger; failure: string },
  ) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.options.intervalMs);
    this.timer.unref();
    this.wake();
  }

  /** Runs a pass now, or right after the one running. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.runPasses().finally(() => (this.running = undefined));
  }

  /** Stops the timer and waits for the pass running, if any. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  private async runPasses(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.pass();
      } catch (error) {
        this.options.logger.error({ err: error }, this.options.failure);
      }
    } while (this.again && !this.stopped);
  }
}
