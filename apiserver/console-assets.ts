/**
 * The web console's built files (`npm run build` writes them to `dist/console`), served by the
 * API's own listener: `index.html` for any page a browser asks for, the hashed bundles under
 * `/assets/`. API paths are never the console's: a path whose first segment is one the API
 * serves stays the API's, so an unknown API path still answers 404 in its own style.
 */
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/**
 * Scripts, styles, fonts and images only from the platform itself; no inline script or style
 * attribute, no framing, no plugin. `connect-src 'self'` covers the event stream's WebSocket on
 * the same origin.
 */
export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Hashed names change with their content: a browser may keep them for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

interface ConsoleFile {
  body: Buffer;
  gzipped: Buffer | undefined;
  contentType: string;
}

/** Answers a request it takes and returns true; returns false to leave it to the API. */
export type ConsoleHandler = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

/**
 * Where the build put the console: beside the compiled server (`dist/apiserver/..` is `dist`), or,
 * when the server runs from its sources, in the repository's `dist/`.
 */
export function defaultConsoleDirectory(): string | undefined {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, '..', 'dist', 'console'), path.join(here, '..', 'console')];
  return candidates.find(
    (dir) => fs.existsSync(path.join(dir, 'index.html')) && fs.existsSync(path.join(dir, 'assets')),
  );
}

function readFiles(dir: string, prefix = ''): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  for (const entry of fs.readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      for (const [name, file] of readFiles(dir, relative)) files.set(name, file);
      continue;
    }
    const contentType = CONTENT_TYPES[path.extname(entry.name)];
    if (!contentType) continue;
    const body = fs.readFileSync(path.join(dir, relative));
    const compressible = !contentType.startsWith('image/png') && !contentType.startsWith('font/');
    files.set(relative, {
      body,
      gzipped: compressible && body.length > 1024 ? gzipSync(body) : undefined,
      contentType,
    });
  }
  return files;
}

function send(req: IncomingMessage, res: ServerResponse, file: ConsoleFile, cacheControl: string): void {
  const gzip = file.gzipped && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = gzip ? file.gzipped! : file.body;
  res.statusCode = 200;
  res.setHeader('Content-Type', file.contentType);
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('Content-Length', body.length);
  if (gzip) res.setHeader('Content-Encoding', 'gzip');
  res.setHeader('Content-Security-Policy', CONSOLE_CONTENT_SECURITY_POLICY);
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** `v1` of `/v1/auth/me`: sliced rather than split, which builds an array for every request. */
function firstSegment(requestPath: string): string {
  const start = requestPath.indexOf('/');
  if (start === -1) return '';
  const end = requestPath.indexOf('/', start + 1);
  return end === -1 ? requestPath.slice(start + 1) : requestPath.slice(start + 1, end);
}

const wantsHtml = (req: IncomingMessage) => /\btext\/html\b/.test(String(req.headers.accept ?? ''));

/**
 * The console's handler, or undefined when it was not built. `apiSegments` are the first path
 * segments the API answers (`v1`, `api`, `health`, …): those paths are never the console's.
 * The files are read once: a new build is served after a restart, like the server's own code.
 */
export function consoleHandler(
  dir: string | undefined,
  apiSegments: ReadonlySet<string>,
): ConsoleHandler | undefined {
  if (!dir) return undefined;
  const files = readFiles(dir);
  const index = files.get('/index.html');
  if (!index) return undefined;
  return (req, res, requestPath) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const segment = firstSegment(requestPath);
    if (apiSegments.has(segment)) return false;
    const file = files.get(requestPath);
    if (file && requestPath !== '/index.html') {
      send(req, res, file, requestPath.startsWith('/assets/') ? IMMUTABLE : 'no-cache');
      return true;
    }
    if (segment === 'assets' || !wantsHtml(req)) return false;
    send(req, res, index, 'no-cache');
    return true;
  };
}
