/** The data-plane database could not be opened: unreachable, unreadable, or a migration failed. */
export class DataPlaneOpenError extends Error {
  /** The migration that failed, when that is why. */
  readonly migration: string | undefined;

  constructor(message: string, options: { cause?: unknown; migration?: string | undefined } = {}) {
    super(message, { cause: options.cause });
    this.name = 'DataPlaneOpenError';
    this.migration = options.migration;
  }
}
