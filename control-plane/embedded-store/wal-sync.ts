import fs from 'node:fs';

/**
 * Makes commits durable without the event loop waiting on the disk. The connection commits with
 * `synchronous=NORMAL`: the commit's frames are written to the WAL (the operating system holds
 * them, so a killed process loses nothing) but not flushed. This flushes the WAL file in libuv's
 * thread pool and only then lets the commits be answered. One flush covers every commit made
 * before it started, so under load many commits share one (group commit), and while it runs the
 * loop keeps serving and committing.
 *
 * A file that is not in WAL mode (`walPath` undefined: in memory, or a file system without
 * shared memory) needs nothing here: its connection commits with `synchronous=FULL`.
 */
export class WalSync {
  private readonly waiting: Array<(error: Error | undefined) => void> = [];
  private flushing: Promise<void> | undefined;
  private descriptor: number | undefined;

  constructor(private readonly walPath: string | undefined) {}

  /** Calls `settle` once every commit made so far is on disk, or with the error that prevented it. */
  afterCommit(settle: (error: Error | undefined) => void): void {
    if (this.walPath === undefined) {
      settle(undefined);
      return;
    }
    this.waiting.push(settle);
    this.flushing ??= this.flush();
  }

  /** Resolves once every commit made so far has been flushed and answered. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Closes the WAL file's descriptor; call after `drain`. */
  close(): void {
    if (this.descriptor !== undefined) fs.closeSync(this.descriptor);
    this.descriptor = undefined;
  }

  private async flush(): Promise<void> {
    while (this.waiting.length > 0) {
      const settles = this.waiting.splice(0);
      let failure: Error | undefined;
      try {
        await this.flushFile();
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
      }
      for (const settle of settles) settle(failure);
    }
    this.flushing = undefined;
  }

  private flushFile(): Promise<void> {
    // SQLite keeps the WAL file (same inode) while a connection is open, so one descriptor serves;
    // fdatasync flushes what any descriptor wrote to it.
    this.descriptor ??= fs.openSync(this.walPath!, 'r');
    const descriptor = this.descriptor;
    return new Promise((resolve, reject) =>
      fs.fdatasync(descriptor, (error) => (error ? reject(error) : resolve())),
    );
  }
}
