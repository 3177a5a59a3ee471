import type { IncomingMessage } from 'node:http';
import { isJsonObject } from '../json-value.js';
import { storeErrorFromWatchEvent } from './kubernetes-errors.js';
import { StoreError, type KubeObject, type Watch, type WatchEvent, type WatchEventType } from '../types.js';

/** Events held unread before the connection is paused, and the level it resumes at. */
const HIGH_WATER = 1000;
const LOW_WATER = 100;

const EVENT_TYPES: ReadonlySet<string> = new Set<WatchEventType>([
  'ADDED',
  'MODIFIED',
  'DELETED',
  'BOOKMARK',
]);

/**
 * One watch request to a kube-apiserver, read as newline-delimited JSON events. An `ERROR` event
 * ends the iteration with its `StoreError` (410 as `Expired`, so the informer relists); the
 * server closing the stream ends it cleanly (the informer resumes from its last revision);
 * `stop()` aborts the request and ends it cleanly. A reader that falls behind pauses the
 * connection rather than buffering without bound.
 */
export class KubernetesWatch<T extends KubeObject> implements Watch<T> {
  private readonly events: WatchEvent<T>[] = [];
  private readonly abort = new AbortController();
  private waiter:
    { resolve: (step: IteratorResult<WatchEvent<T>>) => void; reject: (error: unknown) => void } | undefined;
  private failure: StoreError | undefined;
  private finished = false;
  private response: IncomingMessage | undefined;
  private partial = '';

  constructor(
    open: (signal: AbortSignal) => Promise<IncomingMessage>,
    private readonly complete: (object: Record<string, unknown>) => T,
    private readonly onStop: () => void,
  ) {
    open(this.abort.signal).then(
      (response) => this.attach(response),
      (error: unknown) => this.fail(error),
    );
  }

  stop(): void {
    if (this.abort.signal.aborted) return;
    this.events.length = 0;
    this.failure = undefined;
    this.abort.abort();
    this.response?.destroy();
    this.finish();
    this.onStop();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    return {
      next: () => this.next(),
      return: async () => {
        this.stop();
        return { done: true, value: undefined };
      },
    };
  }

  private next(): Promise<IteratorResult<WatchEvent<T>>> {
    const event = this.events.shift();
    if (event) {
      if (this.events.length <= LOW_WATER && this.response?.isPaused()) this.response.resume();
      return Promise.resolve({ done: false, value: event });
    }
    if (this.failure) {
      const failure = this.failure;
      this.failure = undefined;
      return Promise.reject(failure);
    }
    if (this.finished) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  private attach(response: IncomingMessage): void {
    if (this.finished) {
      response.destroy();
      return;
    }
    this.response = response;
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => this.receive(chunk));
    response.on('end', () => {
      if (!this.finished && this.partial.trim() !== '') this.line(this.partial);
      this.partial = '';
      this.finish();
    });
    response.on('error', (error) => this.fail(error));
    response.on('aborted', () => this.fail(new Error('the connection closed mid-stream')));
  }

  private receive(chunk: string): void {
    this.partial += chunk;
    let newline = this.partial.indexOf('\n');
    while (newline >= 0 && !this.finished) {
      const line = this.partial.slice(0, newline);
      this.partial = this.partial.slice(newline + 1);
      if (line.trim() !== '') this.line(line);
      newline = this.partial.indexOf('\n');
    }
    if (this.events.length >= HIGH_WATER) this.response?.pause();
  }

  private line(text: string): void {
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      this.fail(
        new StoreError('InternalError', `the watch sent a line that is not JSON: ${text.slice(0, 200)}`),
      );
      return;
    }
    const type = isJsonObject(frame) ? frame.type : undefined;
    const object = isJsonObject(frame) ? frame.object : undefined;
    if (type === 'ERROR') {
      this.fail(storeErrorFromWatchEvent(object));
      return;
    }
    if (typeof type !== 'string' || !EVENT_TYPES.has(type) || !isJsonObject(object)) {
      this.fail(
        new StoreError('InternalError', `the watch sent an event it cannot read: ${text.slice(0, 200)}`),
      );
      return;
    }
    this.deliver({ type: type as WatchEventType, object: this.complete(object) });
  }

  private deliver(event: WatchEvent<T>): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter.resolve({ done: false, value: event });
    } else {
      this.events.push(event);
    }
  }

  /** Ends the stream with an error, delivered after the events already received. */
  private fail(error: unknown): void {
    if (this.finished) return;
    const failure =
      error instanceof StoreError
        ? error
        : new StoreError(
            'ServiceUnavailable',
            `the watch connection broke: ${error instanceof Error ? error.message : String(error)}`,
          );
    this.finished = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) waiter.reject(failure);
    else this.failure = failure;
    this.response?.destroy();
  }

  private finish(): void {
    this.finished = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve({ done: true, value: undefined });
  }
}
