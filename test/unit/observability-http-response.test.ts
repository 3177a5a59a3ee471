import http, { type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { ApiResponse, handOverHeaders, presetHeader } from '../../observability/http-response.js';

/** Answers one GET through `listener` on a server made with `responses`; the response as fetch sees it. */
async function answerOf(
  listener: RequestListener,
  responses: typeof ServerResponse = ApiResponse,
): Promise<Response> {
  const server = http.createServer({ ServerResponse: responses }, listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/`);
    await response.arrayBuffer();
    return response;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

const headersOf = (response: Response) => Object.fromEntries(response.headers);

describe('ApiResponse', () => {
  const cases: { name: string; answer: RequestListener; status: number; headers: Record<string, string> }[] =
    [
      {
        name: 'writes preset headers with the status line',
        answer: (_req, res) => {
          presetHeader(res, 'X-Request-Id', 'r-1');
          presetHeader(res, 'Content-Length', 2);
          res.statusCode = 201;
          res.end('{}');
        },
        status: 201,
        headers: { 'x-request-id': 'r-1', 'content-length': '2' },
      },
      {
        name: 'keeps one value per name, the last, whatever its case',
        answer: (_req, res) => {
          presetHeader(res, 'Cache-Control', 'no-cache');
          presetHeader(res, 'cache-control', 'no-store');
          res.end();
        },
        status: 200,
        headers: { 'cache-control': 'no-store' },
      },
      {
        name: 'lets setHeader after a preset override it, and keeps the others',
        answer: (_req, res) => {
          presetHeader(res, 'X-Request-Id', 'r-1');
          presetHeader(res, 'Cache-Control', 'no-store');
          res.setHeader('cache-control', 'max-age=60');
          res.end();
        },
        status: 200,
        headers: { 'x-request-id': 'r-1', 'cache-control': 'max-age=60' },
      },
      {
        name: 'lets a preset after setHeader override it',
        answer: (_req, res) => {
          res.setHeader('Cache-Control', 'max-age=60');
          presetHeader(res, 'Cache-Control', 'no-store');
          res.end();
        },
        status: 200,
        headers: { 'cache-control': 'no-store' },
      },
      {
        name: "gives writeHead's own headers precedence",
        answer: (_req, res) => {
          presetHeader(res, 'Content-Type', 'text/plain');
          presetHeader(res, 'X-Request-Id', 'r-1');
          res.writeHead(202, { 'content-type': 'application/json' });
          res.end();
        },
        status: 202,
        headers: { 'content-type': 'application/json', 'x-request-id': 'r-1' },
      },
      {
        name: 'shows presets to the header methods',
        answer: (_req, res) => {
          presetHeader(res, 'X-Request-Id', 'r-1');
          res.setHeader('X-Seen', String(res.getHeader('x-request-id')));
          res.end();
        },
        status: 200,
        headers: { 'x-request-id': 'r-1', 'x-seen': 'r-1' },
      },
      {
        name: 'hands presets over before express takes the response',
        answer: (() => {
          const app = express();
          app.get('/', (_req, res) => void res.json({}));
          return (req, res) => {
            presetHeader(res, 'X-Request-Id', 'r-1');
            handOverHeaders(res);
            app(req, res);
          };
        })(),
        status: 200,
        headers: { 'x-request-id': 'r-1', 'content-type': 'application/json; charset=utf-8' },
      },
    ];

  for (const { name, answer, status, headers } of cases) {
    it(name, async () => {
      const response = await answerOf(answer);
      expect(response.status).toBe(status);
      expect(headersOf(response)).toMatchObject(headers);
    });
  }

  it('sets presets through setHeader on any other response', async () => {
    const response = await answerOf((_req, res) => {
      presetHeader(res, 'X-Request-Id', 'r-1');
      res.end();
    }, http.ServerResponse);
    expect(response.headers.get('x-request-id')).toBe('r-1');
  });
});
