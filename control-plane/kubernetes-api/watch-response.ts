import type { Response } from 'express';
import type { Watch, WatchEvent } from '../types.js';
import type { Logger } from '../../observability/logger.js';
import { statusOf } from './kube-status.js';

/** The minimum of a watch's lifetime without `timeoutSeconds`; each watch picks up to twice this, as the apiserver does. */
const DEFAULT_MIN_TIMEOUT_SECONDS = 1800;

export interface WatchResponseOptions {
  watch: Watch;
  /** What goes on the wire for a store event; undefined leaves it out (filtered). */
  encode(event: WatchEvent): { type: string; object: unknown } | undefined;
  /** `timeoutSeconds` of the request; when absent the watch lasts 30 to 60 minutes. */
  timeoutSeconds: number | undefined;
  /** Added to the details of an error Status. */
  group: string;
  logger: Logger;
}

function lifetimeMs(timeoutSeconds: number | undefined): number {
  if (timeoutSeconds !== undefined && timeoutSeconds > 0) return timeoutSeconds * 1000;
  return Math.round(DEFAULT_MIN_TIMEOUT_SECONDS * (1 + Math.random()) * 1000);
}

/** Resolves once `res` may take more data, or the client is gone. */
function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Streams a watch as the apiserver does: 200 with chunked, newline-delimited JSON events. A store
 * failure (410 Expired above all) becomes a final `ERROR` event carrying its Status, which is how
 * clients learn to relist. The stream ends at the timeout and stops the store's watch as soon as
 * the client disconnects.
 */
export async function streamWatch(res: Response, options: WatchResponseOptions): Promise<void> {
  const { watch } = options;
  res.status(200);
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Cache-Control', 'no-cache, private');
  res.flushHeaders();
  const stop = () => watch.stop();
  const timer = setTimeout(stop, lifetimeMs(options.timeoutSeconds));
  timer.unref();
  res.on('close', stop);
  try {
    for await (const event of watch) {
      if (res.destroyed) break;
      const encoded = options.encode(event);
      if (encoded === undefined) continue;
      if (!res.write(`${JSON.stringify(encoded)}\n`)) await drained(res);
    }
  } catch (error) {
    const status = statusOf(error, options.group);
    if (status.code >= 500) options.logger.error({ err: error }, 'watch failed');
    if (!res.destroyed) res.write(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
  } finally {
    clearTimeout(timer);
    res.off('close', stop);
    watch.stop();
    res.end();
  }
}
