/**
 * Vault's `LIST` method on a Node server. Node's HTTP parser refuses methods it does not know, so a
 * connection that sends one is taken over from the refusal on: its bytes go through a rewriter in
 * which a `LIST <target>` request line becomes `GET <target>?list=true` (what Vault itself takes as
 * LIST) and everything else passes unchanged, into a fresh HTTP connection of the same server.
 * Every other connection keeps node's native parsing, which reading each connection's bytes in
 * JavaScript would cost every request of the API. Requests are followed through a keep-alive
 * connection by their framing (Content-Length, or chunked transfer encoding) so a body is never
 * mistaken for a request line.
 */
import type { Server } from 'node:http';
import { Socket } from 'node:net';
import { Duplex, type Writable } from 'node:stream';

/** A request head larger than this stops the rewriting for the connection: the parser refuses it anyway. */
const MAX_HEAD_BYTES = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

type State =
  | { at: 'head' }
  | { at: 'body'; remaining: number }
  | { at: 'chunk-size' }
  | { at: 'chunk-data'; remaining: number }
  | { at: 'trailers' }
  | { at: 'passthrough' };

function rewriteHead(head: Buffer): Buffer {
  if (!head.subarray(0, 5).equals(Buffer.from('LIST '))) return head;
  const text = head.toString('latin1');
  const lineEnd = text.indexOf('\r\n');
  const [, target = '/', version = 'HTTP/1.1'] = text.slice(0, lineEnd).split(' ');
  const listed = `${target}${target.includes('?') ? '&' : '?'}list=true`;
  return Buffer.from(`GET ${listed} ${version}${text.slice(lineEnd)}`, 'latin1');
}

function bodyStateOf(head: Buffer): State {
  const headers = head.toString('latin1').toLowerCase();
  // After an upgrade (a WebSocket) or a CONNECT the connection carries no more HTTP requests.
  if (/\r\nupgrade:/.test(headers) || headers.startsWith('connect ')) return { at: 'passthrough' };
  if (/\r\ntransfer-encoding:[^\r\n]*chunked/.test(headers)) return { at: 'chunk-size' };
  const length = /\r\ncontent-length:\s*(\d+)/.exec(headers);
  const remaining = length ? Number(length[1]) : 0;
  return remaining > 0 ? { at: 'body', remaining } : { at: 'head' };
}

/** A stateful rewriter of one connection's inbound bytes. */
export class ListMethodRewriter {
  private state: State = { at: 'head' };
  private pending: Buffer = Buffer.alloc(0);

  /** The bytes to hand to the HTTP parser for `chunk`; some may be held until a head is complete. */
  push(chunk: Buffer): Buffer {
    let input: Buffer = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    const out: Buffer[] = [];
    while (input.length > 0) {
      const state = this.state;
      if (state.at === 'passthrough') {
        out.push(input);
        break;
      }
      if (state.at === 'body' || state.at === 'chunk-data') {
        const taken = Math.min(state.remaining, input.length);
        out.push(input.subarray(0, taken));
        input = input.subarray(taken);
        state.remaining -= taken;
        if (state.remaining === 0) this.state = state.at === 'body' ? { at: 'head' } : { at: 'chunk-size' };
        continue;
      }
      const end = input.indexOf(state.at === 'head' ? HEAD_END : CRLF);
      if (end < 0) {
        if (input.length > MAX_HEAD_BYTES) {
          this.state = { at: 'passthrough' };
          continue;
        }
        this.pending = input;
        break;
      }
      if (state.at === 'head') {
        const head = input.subarray(0, end + HEAD_END.length);
        input = input.subarray(head.length);
        out.push(rewriteHead(head));
        this.state = bodyStateOf(head);
      } else if (state.at === 'chunk-size') {
        const line = input.subarray(0, end + CRLF.length);
        input = input.subarray(line.length);
        out.push(line);
        const size = Number.parseInt(line.toString('latin1'), 16);
        if (Number.isNaN(size)) this.state = { at: 'passthrough' };
        // The data is followed by its CRLF; the last chunk (size 0) by the trailers.
        else
          this.state = size === 0 ? { at: 'trailers' } : { at: 'chunk-data', remaining: size + CRLF.length };
      } else {
        const line = input.subarray(0, end + CRLF.length);
        input = input.subarray(line.length);
        out.push(line);
        if (line.length === CRLF.length) this.state = { at: 'head' };
      }
    }
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  }
}

/** The listeners node's HTTP server puts on a connection's socket, by the names node gives them. */
const SERVER_LISTENERS = new Set([
  'bound socketOnData',
  'bound socketOnEnd',
  'bound socketOnClose',
  'bound socketOnDrain',
  'socketOnTimeout',
  'onSocketResume',
  'onSocketPause',
]);
const SOCKET_EVENTS = ['data', 'end', 'close', 'drain', 'timeout', 'resume', 'pause'] as const;

/** The parts of node's per-connection parser this takes over from. */
interface NodeParser {
  _consumed?: boolean;
  unconsume(): void;
  remove?(): void;
  close?(): void;
}

interface ServerSocket extends Socket {
  parser?: NodeParser | null;
  _httpMessage?: (Writable & { once(event: 'finish' | 'close', listener: () => void): unknown }) | null;
}

interface ParseError extends Error {
  code?: string;
  rawPacket?: Buffer;
  bytesParsed?: number;
}

const LIST = Buffer.from('LIST ');

/** Where the refused request starts in the bytes the parser was given, when it is a LIST. */
function listRequestStart(error: ParseError): number | undefined {
  const { code, rawPacket, bytesParsed } = error;
  if (code !== 'HPE_INVALID_METHOD' || !rawPacket || bytesParsed === undefined) return undefined;
  // The parser stops at the S of LIST: LI could still have been LINK.
  const start = bytesParsed - 2;
  return start >= 0 && rawPacket.subarray(start, start + LIST.length).equals(LIST) ? start : undefined;
}

/** What node's server answers a client error it has no listener for, by the error's code. */
function refusalOf(code: string | undefined): string {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n';
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';
    default:
      return 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n';
  }
}

/** Node's own answer to a client error, which a `clientError` listener replaces. */
function refuse(error: ParseError, socket: ServerSocket): void {
  const message = socket._httpMessage as { headersSent?: boolean } | null | undefined;
  if (socket.writable && !message?.headersSent) socket.write(refusalOf(error.code));
  socket.destroy(error);
}

/** Calls `then` once no response is in flight on the socket (pipelined requests before the LIST). */
function whenIdle(socket: ServerSocket, then: () => void): void {
  const message = socket._httpMessage;
  if (!message) {
    then();
    return;
  }
  let settled = false;
  const next = () => {
    if (settled) return;
    settled = true;
    setImmediate(() => whenIdle(socket, then));
  };
  message.once('finish', next);
  message.once('close', next);
}

/**
 * A connection for the server's HTTP machinery that reads `socket` through a `ListMethodRewriter`
 * (starting with `pending`, the bytes the native parser refused) and writes to it.
 */
function rewritingConnection(socket: ServerSocket, pending: Buffer): Duplex {
  const rewriter = new ListMethodRewriter();
  const connection = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, encoding, callback) {
      socket.write(chunk, encoding, callback);
    },
    final(callback) {
      socket.end(callback);
    },
    destroy(error, callback) {
      socket.destroy(error ?? undefined);
      callback(null);
    },
  });
  // What handlers read off a connection: the peer (rate limits, audit) and whether it is TLS.
  for (const name of [
    'remoteAddress',
    'remotePort',
    'remoteFamily',
    'localAddress',
    'localPort',
    'encrypted',
  ]) {
    Object.defineProperty(connection, name, {
      get: () => (socket as unknown as Record<string, unknown>)[name],
    });
  }
  const forward = (chunk: Buffer) => {
    const bytes = rewriter.push(chunk);
    if (bytes.length > 0 && !connection.push(bytes)) socket.pause();
  };
  forward(pending);
  socket.on('data', forward);
  socket.on('end', () => connection.push(null));
  socket.on('close', () => connection.destroy());
  socket.on('error', (error) => connection.destroy(error));
  // The server's keep-alive and idle timeouts set a connection's timeout and close it on 'timeout'.
  Object.assign(connection, {
    setTimeout(ms: number, callback?: () => void) {
      socket.setTimeout(ms, callback);
      return connection;
    },
  });
  socket.on('timeout', () => connection.emit('timeout'));
  return connection;
}

/**
 * Takes `socket` from node's parser, which refused its LIST, once no earlier response is in
 * flight, and serves the rest of the connection, LIST included, through a rewriting connection.
 */
function takeOver(server: Server, socket: ServerSocket, pending: Buffer): void {
  const parser = socket.parser;
  // The refused parser stops reading; the socket's bytes wait in its own buffer until the takeover
  // (node's pause listener would stop the handle reading, which its resume could not restart).
  if (parser?._consumed) {
    parser.unconsume();
    parser._consumed = false;
  }
  removeServerListeners(socket, ['data', 'pause', 'resume']);
  socket.pause();
  whenIdle(socket, () => {
    removeServerListeners(socket, SOCKET_EVENTS);
    if (parser) {
      // Out of the server's list of connections whose requests it times out, then released.
      parser.remove?.();
      socket.parser = null;
      setImmediate(() => parser.close?.());
    }
    // Node's wrappers of these undo the native reading, which is over for this socket.
    socket.on = Socket.prototype.on;
    socket.addListener = Socket.prototype.addListener;
    socket.prependListener = Socket.prototype.prependListener;
    // An HTTPS server's HTTP machinery listens for connections past the TLS handshake.
    const event = (socket as { encrypted?: boolean }).encrypted ? 'secureConnection' : 'connection';
    server.emit(event, rewritingConnection(socket, pending));
    socket.resume();
  });
}

function removeServerListeners(socket: ServerSocket, events: readonly string[]): void {
  for (const event of events)
    for (const listener of socket.listeners(event) as ((...args: unknown[]) => void)[])
      if (SERVER_LISTENERS.has(listener.name)) socket.removeListener(event, listener);
}

/**
 * Serves Vault's LIST method on `server`: a connection whose request the parser refused for being
 * a LIST continues through the rewriter; any other client error is answered as node answers it.
 */
export function serveListMethod(server: Server): void {
  server.on('clientError', (error: ParseError, socket: ServerSocket) => {
    const start = listRequestStart(error);
    if (start === undefined) refuse(error, socket);
    else takeOver(server, socket, error.rawPacket!.subarray(start));
  });
}
