import { afterEach, describe, expect, it } from 'vitest';
import { defineRoute, type RouteModule } from '../../apiserver/routing/route.js';
import { startTestApp, type TestApp } from '../fixtures/app-dependencies.js';

let app: TestApp | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A route whose answer waits until the test releases it. */
function slowRoute() {
  let markStarted!: () => void;
  let release!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const module: RouteModule = {
    area: 'usage',
    routes: [
      defineRoute({
        method: 'get',
        path: '/api/v1/usage/slow',
        area: 'usage',
        auth: 'public',
        summary: 'Answers when released',
        responses: { 200: { description: 'Done', schema: { type: 'object' } } },
        async handler() {
          markStarted();
          await released;
          return { data: { finished: true } };
        },
      }),
    ],
  };
  return { module, started, release };
}

describe('startServer', () => {
  it('listens on an ephemeral port and reports its URL', async () => {
    app = await startTestApp();
    expect(app.server.port).toBeGreaterThan(0);
    expect(app.server.url).toBe(`http://127.0.0.1:${app.server.port}`);
  });

  it('on close, refuses new connections, finishes the request in flight and closes idle keep-alive sockets', async () => {
    const slow = slowRoute();
    app = await startTestApp({ routes: [slow.module] });
    expect((await app.request('/health')).status).toBe(200);

    const inFlight = app.request('/api/v1/usage/slow');
    await slow.started;
    const closed = app.server.close();

    await expect(fetch(`${app.url}/health`, { headers: { connection: 'close' } })).rejects.toThrow();
    slow.release();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ finished: true });
    await closed;
  });
});
