/**
 * Vault's `LIST` method on a Node listener. Node's HTTP parser refuses methods it does not know,
 * so the bytes of each request are looked at before it: a `LIST <target>` request line becomes
 * `GET <target>?list=true` (what Vault itself takes as LIST), and everything else passes through
 * unchanged. Requests are followed through a keep-alive connection by their framing
 * (Content-Length, or chunked transfer encoding) so a body is never mistaken for a request line.
 */
import type { Socket } from 'node:net';

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

/**
 * Puts a `ListMethodRewriter` in front of the HTTP parser of `socket`. Node hands a socket's native
 * handle straight to the parser when it can; marking the handle consumed makes the server read
 * through the socket's JavaScript stream instead, where the rewriting happens. Register it as a
 * `connection` listener placed before the HTTP server's own.
 */
export function rewriteListMethod(socket: Socket): void {
  const rewriter = new ListMethodRewriter();
  const handle = (socket as unknown as { _handle?: { _consumed?: boolean } })._handle;
  if (handle) handle._consumed = true;
  const push = socket.push.bind(socket);
  socket.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (!Buffer.isBuffer(chunk)) return push(chunk, encoding);
    const rewritten = rewriter.push(chunk);
    // A head still incomplete is held back; pushing nothing would read as the end of the stream.
    return rewritten.length === 0 ? true : push(rewritten);
  };
}
