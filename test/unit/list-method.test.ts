import { describe, expect, it } from 'vitest';
import { ListMethodRewriter } from '../../apiserver/list-method.js';

/** Feeds `input` to a fresh rewriter in pieces of `size` bytes; answers everything it let through. */
function rewrite(input: string, size = input.length): string {
  const rewriter = new ListMethodRewriter();
  const bytes = Buffer.from(input, 'latin1');
  let out = '';
  for (let at = 0; at < bytes.length; at += size)
    out += rewriter.push(bytes.subarray(at, at + size)).toString('latin1');
  return out;
}

const list = 'LIST /v1/secret/metadata/app HTTP/1.1\r\nHost: x\r\n\r\n';
const asGet = 'GET /v1/secret/metadata/app?list=true HTTP/1.1\r\nHost: x\r\n\r\n';

describe('ListMethodRewriter', () => {
  it.each([
    ['a LIST request line', list, asGet],
    [
      'a LIST with a query already',
      'LIST /v1/sys/policies/acl?x=1 HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /v1/sys/policies/acl?x=1&list=true HTTP/1.1\r\nHost: x\r\n\r\n',
    ],
    [
      'any other method, untouched',
      'GET /v1/secret/data/app HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /v1/secret/data/app HTTP/1.1\r\nHost: x\r\n\r\n',
    ],
    [
      'a body that holds a LIST line, left alone (Content-Length)',
      `POST /a HTTP/1.1\r\nContent-Length: ${list.length}\r\n\r\n${list}${list}`,
      `POST /a HTTP/1.1\r\nContent-Length: ${list.length}\r\n\r\n${list}${asGet}`,
    ],
    [
      'a chunked body that holds a LIST line, left alone',
      `POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${list.length.toString(16)}\r\n${list}\r\n0\r\n\r\n${list}`,
      `POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n${list.length.toString(16)}\r\n${list}\r\n0\r\n\r\n${asGet}`,
    ],
    ['two requests on one connection', `${list}${list}`, `${asGet}${asGet}`],
    [
      'the bytes after an upgrade, left alone',
      `GET /events HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n${list}`,
      `GET /events HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n${list}`,
    ],
  ])('rewrites %s, in one piece or byte by byte', (_case, input, output) => {
    expect(rewrite(input)).toBe(output);
    expect(rewrite(input, 1)).toBe(output);
    expect(rewrite(input, 7)).toBe(output);
  });

  it('stops looking at a connection whose head never ends, and passes its bytes on', () => {
    const huge = `GET /${'a'.repeat(70 * 1024)}`;
    expect(rewrite(huge).length).toBe(huge.length);
  });
});
