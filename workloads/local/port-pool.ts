import net from 'node:net';
import { WorkloadError } from '../runtime.js';

export interface PortRange {
  first: number;
  last: number;
}

/** Whether something may listen on `port` at `host` right now. */
export async function isBindable(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * A range of ports handed out one at a time. The caller says which ports its workloads already
 * hold (they may be stopped, so the port would bind, yet it is theirs); a port is offered only
 * when it also binds now, so a port some other program took is skipped rather than failing later.
 */
export class PortPool {
  constructor(
    private readonly range: PortRange,
    /** The setting the range comes from, named in the error when it runs out. */
    private readonly setting: string,
    private readonly host = '127.0.0.1',
  ) {}

  async allocate(claimed: ReadonlySet<number>): Promise<number> {
    for (let port = this.range.first; port <= this.range.last; port++) {
      if (!claimed.has(port) && (await isBindable(port, this.host))) return port;
    }
    throw new WorkloadError(
      'PortPoolExhausted',
      `no free port in ${this.setting} (${this.range.first}-${this.range.last}); widen the range or remove a database`,
    );
  }
}
