import fs from 'node:fs';

type Answer = (error?: Error) => void;

/**
 * Fsyncs a SQLite WAL file on libuv's thread pool, so the event loop reads and checks the next
 * requests while the disk flushes. One sync runs at a time; commits written meanwhile wait for the
 * next, which starts as soon as it ends and covers every one of them (a group commit across turns).
 * Any descriptor of the file flushes its data, so this one needs none of SQLite's own.
 */
export class WalSync {
  private fd: number | undefined;
  private running: Answer[] | undefined;
  private waiting: Answer[] = [];

  constructor(private readonly walFile: string) {}

  /** Calls `done` once everything written to the WAL before this call is on disk. */
  after(done: Answer): void {
    this.waiting.push(done);
    if (!this.running) this.start();
  }

  private start(): void {
    const answers = this.waiting;
    this.waiting = [];
    this.running = answers;
    let fd: number;
    try {
      fd = this.descriptor();
    } catch (error) {
      this.finish(answers, error as Error);
      return;
    }
    fs.fdatasync(fd, (error) => {
      // Closed meanwhile: `close` has flushed and answered them.
      if (this.running === answers) this.finish(answers, error ?? undefined);
    });
  }

  private finish(answers: Answer[], error: Error | undefined): void {
    this.running = undefined;
    for (const answer of answers) answer(error);
    if (this.waiting.length > 0) this.start();
  }

  private descriptor(): number {
    this.fd ??= fs.openSync(this.walFile, 'r');
    return this.fd;
  }

  /** Flushes what is written, answers every waiting commit, and lets the file go. */
  close(): void {
    const answers = [...(this.running ?? []), ...this.waiting];
    this.running = undefined;
    this.waiting = [];
    let failure: Error | undefined;
    try {
      if (answers.length > 0) fs.fdatasyncSync(this.descriptor());
    } catch (error) {
      failure = error as Error;
    }
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
    for (const answer of answers) answer(failure);
  }
}
