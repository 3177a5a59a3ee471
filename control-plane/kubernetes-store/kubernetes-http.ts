import http, { STATUS_CODES } from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../../observability/logger.js';
import { storeErrorFromStatus, unreachable, wasNeverSent } from './kubernetes-errors.js';
import { StoreError } from '../types.js';

/**
 * Requests to a kube-apiserver over node's http/https, authenticated by the kubeconfig
 * (`applyToHTTPSOptions`: bearer tokens, exec and token-file providers, client certificates, CA,
 * proxies). Not client-node's generated API classes: they report a refusal as an `ApiException`
 * whose body is a string to parse again, and their `Watch` turns a refused watch into a bare
 * status text (the `Status` with its reason is lost) and skips lines it cannot parse. Here every
 * answer's code and `Status` arrive intact, patches carry exactly the content type asked for, and
 * a watch is one plain streaming request.
 */

export interface RetryPolicy {
  /** Tries in all, the first included. Default 5. */
  attempts?: number;
  /** The wait before the second try; it doubles with each try after. Default 250 ms. */
  baseDelayMs?: number;
  /** No wait is longer, whatever `Retry-After` asks. Default 10 s. */
  maxDelayMs?: number;
  /** Waits between tries; injected so tests do not sleep. */
  delay?: (ms: number) => Promise<void>;
}

/**
 * Which failures a request may be sent again after. `transient`: 429, 5xx and lost connections,
 * for requests that change nothing when repeated. `unsent`: only a connection that was never
 * made (a create sent twice could create twice). `never`: one try.
 */
export type RetryMode = 'transient' | 'unsent' | 'never';

export type QueryValue = string | number | boolean | undefined;

export interface KubernetesRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** From the API root, e.g. `/apis/example.dev/v1/namespaces/a/widgets`. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Default `application/json`. */
  contentType?: string;
  retry: RetryMode;
}

export interface KubernetesHttpOptions {
  kubeConfig: KubeConfig;
  logger: Logger;
  retry?: RetryPolicy;
  /** How long one request may go without an answer. Default 30 s. */
  requestTimeoutMs?: number;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

const USER_AGENT = 'cloudplane';
const IDLE_SOCKET_MS = 4_000;
const defaultDelay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

function timeoutError(ms: number): Error {
  return Object.assign(new Error(`no answer within ${ms} ms`), { code: 'ETIMEDOUT' });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `Retry-After` in seconds, as the apiserver sends it with 429 and some 5xx answers. */
function retryAfterMs(headers: http.IncomingHttpHeaders): number | undefined {
  const raw = headers['retry-after'];
  if (typeof raw !== 'string' || !/^\d+$/.test(raw.trim())) return undefined;
  return Number(raw.trim()) * 1000;
}

function describeFailure(answer: Answer): string {
  const phrase = STATUS_CODES[answer.status] ?? 'Unknown';
  const excerpt = answer.text.trim().slice(0, 200);
  return `the Kubernetes API answered ${answer.status} ${phrase}${excerpt ? `: ${excerpt}` : ''}`;
}

export class KubernetesHttp {
  /**
   * Keep-alive pools; a request's TLS options are part of the pool key, so identities never share
   * a socket. Idle sockets are dropped after 4 s, before the idle limits servers commonly close
   * at (node's own is 5 s): a create is never sent again, so it must rarely meet a socket the
   * server is closing.
   */
  private readonly plainPool = new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS });
  private readonly tlsPool = new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS });
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly delay: (ms: number) => Promise<void>;
  private readonly requestTimeoutMs: number;
  private closed = false;

  constructor(private readonly options: KubernetesHttpOptions) {
    this.attempts = Math.max(1, options.retry?.attempts ?? 5);
    this.baseDelayMs = options.retry?.baseDelayMs ?? 250;
    this.maxDelayMs = options.retry?.maxDelayMs ?? 10_000;
    this.delay = options.retry?.delay ?? defaultDelay;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  }

  /** The API server's URL, for messages. */
  get server(): string {
    return this.options.kubeConfig.getCurrentCluster()?.server ?? '(no cluster in the kubeconfig)';
  }

  /** Sends `request`, retrying as its mode allows; answers the parsed body of a 2xx, throws `StoreError` otherwise. */
  async send(request: KubernetesRequest): Promise<unknown> {
    for (let attempt = 1; ; attempt += 1) {
      this.ensureOpen();
      let answer: Answer;
      try {
        answer = await this.exchange(request);
      } catch (error) {
        this.ensureOpen();
        if (error instanceof StoreError) throw error;
        const retriable =
          request.retry === 'transient' || (request.retry === 'unsent' && wasNeverSent(error));
        if (!retriable || attempt >= this.attempts) throw unreachable(this.server, error);
        await this.pause(request, attempt, undefined, { err: error });
        continue;
      }
      const body = parseJson(answer.text);
      if (answer.status >= 200 && answer.status < 300) {
        if (body === undefined) {
          throw new StoreError('InternalError', `${describeFailure(answer)} (expected JSON)`);
        }
        return body;
      }
      const transient = answer.status === 429 || answer.status >= 500;
      if (transient && request.retry === 'transient' && attempt < this.attempts) {
        await this.pause(request, attempt, retryAfterMs(answer.headers), { status: answer.status });
        continue;
      }
      throw storeErrorFromStatus(answer.status, body, describeFailure(answer));
    }
  }

  /**
   * Opens a streaming GET (a watch). Resolves with the response once the server answers 200;
   * rejects with the `StoreError` of any other answer. `idleTimeoutMs` ends a connection that
   * falls silent; `signal` aborts it.
   */
  openStream(
    path: string,
    query: Record<string, QueryValue>,
    signal: AbortSignal,
    idleTimeoutMs: number,
  ): Promise<http.IncomingMessage> {
    this.ensureOpen();
    return this.connect({ method: 'GET', path, query, retry: 'never' }, idleTimeoutMs, signal).then(
      (response) => {
        if (response.statusCode === 200) return response;
        return readAll(response).then((text) => {
          const answer = { status: response.statusCode ?? 500, headers: response.headers, text };
          throw storeErrorFromStatus(answer.status, parseJson(text), describeFailure(answer));
        });
      },
      (error: unknown) => {
        throw error instanceof StoreError ? error : unreachable(this.server, error);
      },
    );
  }

  close(): void {
    this.closed = true;
    this.plainPool.destroy();
    this.tlsPool.destroy();
  }

  private ensureOpen(): void {
    if (this.closed) throw new StoreError('ServiceUnavailable', 'the object store is closed');
  }

  private async pause(
    request: KubernetesRequest,
    attempt: number,
    askedMs: number | undefined,
    cause: Record<string, unknown>,
  ): Promise<void> {
    const backoff = this.baseDelayMs * 2 ** (attempt - 1);
    const waitMs = Math.min(this.maxDelayMs, askedMs ?? backoff);
    this.options.logger.warn(
      { method: request.method, path: request.path, attempt, retryInMs: waitMs, ...cause },
      'Kubernetes API request failed; retrying',
    );
    await this.delay(waitMs);
  }

  private async exchange(request: KubernetesRequest): Promise<Answer> {
    const response = await this.connect(request, this.requestTimeoutMs);
    const text = await readAll(response);
    return { status: response.statusCode ?? 500, headers: response.headers, text };
  }

  /** Sends the request; resolves with the response as soon as its head arrives. */
  private async connect(
    request: KubernetesRequest,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<http.IncomingMessage> {
    const cluster = this.options.kubeConfig.getCurrentCluster();
    if (!cluster) throw new StoreError('ServiceUnavailable', 'the kubeconfig names no current cluster');
    const url = new URL(`${cluster.server.replace(/\/+$/, '')}${request.path}`);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': USER_AGENT };
    let payload: Buffer | undefined;
    if (request.body !== undefined) {
      payload = Buffer.from(JSON.stringify(request.body));
      headers['Content-Type'] = request.contentType ?? 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    const options: https.RequestOptions = { method: request.method, headers };
    try {
      await this.options.kubeConfig.applyToHTTPSOptions(options);
    } catch (error) {
      // A kubeconfig that cannot be used (plain http without skipping TLS checks, a failing
      // credential plugin) fails the same way however often it is tried.
      const detail = error instanceof Error ? error.message : String(error);
      throw new StoreError(
        'ServiceUnavailable',
        `cannot use the kubeconfig for ${cluster.server}: ${detail}`,
      );
    }
    // A proxy needs the connection pool the kubeconfig made for it; otherwise ours serve.
    if (!cluster.proxyUrl) options.agent = url.protocol === 'https:' ? this.tlsPool : this.plainPool;
    if (signal) options.signal = signal;
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const outgoing = transport.request(url, options, resolve);
      // The socket's idle timeout: it bounds the wait for an answer and any silence within one.
      outgoing.setTimeout(timeoutMs, () => outgoing.destroy(timeoutError(timeoutMs)));
      outgoing.on('error', reject);
      outgoing.end(payload);
    });
  }
}

function readAll(response: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('the connection closed before the answer was complete')));
  });
}
