/**
 * An API that speaks a wire format of its own (Kafka Connect's REST API, for one), served from a
 * route table straight off node's request and response, as the declared routes are: no express
 * request and response prototypes swapped in per request, no layer walk. What the API keeps of
 * its own: its authentication (`admit`, run for every request under its path, answered or not),
 * its JSON body parsing (any content type, any JSON value), its 404 and its error bodies.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring';
import express from 'express';
import { match } from 'path-to-regexp';
import { answerAreaError, type AreaErrors } from './area-errors.js';
import type { HttpMethod } from './route.js';
import { decodeParameter, RouteTable } from './route-table.js';
import type { RequestTarget } from './route-paths.js';

/** A request as a wire API's handlers see it; `locals` is what `admit` answered. */
export interface WireRequest<L> {
  method: string;
  headers: IncomingHttpHeaders;
  /** The mount's parameters and the route's, percent-decoded; a `*wildcard` joined with `/`. */
  params: Record<string, string>;
  query: ParsedUrlQuery;
  /** The parsed JSON body; undefined when the request had none. */
  body: unknown;
  /** The client's address, forwarding headers read as the platform trusts them. */
  ip: string;
  locals: L;
}

export type WireHandler<L> = (req: WireRequest<L>, res: ServerResponse) => unknown;

/** Where a wire API's routes are declared, in matching order (the first that matches answers). */
export class WireRoutes<L> {
  readonly entries: { template: string; method: HttpMethod; value: WireHandler<L> }[] = [];

  get(template: string, handler: WireHandler<L>): void {
    this.entries.push({ template, method: 'get', value: handler });
  }

  post(template: string, handler: WireHandler<L>): void {
    this.entries.push({ template, method: 'post', value: handler });
  }

  put(template: string, handler: WireHandler<L>): void {
    this.entries.push({ template, method: 'put', value: handler });
  }

  patch(template: string, handler: WireHandler<L>): void {
    this.entries.push({ template, method: 'patch', value: handler });
  }

  delete(template: string, handler: WireHandler<L>): void {
    this.entries.push({ template, method: 'delete', value: handler });
  }
}

export interface WireApiOptions<L> {
  /** The mount's template, such as `/streaming/:clusterId/connect`; its parameters reach handlers. */
  path: string;
  routes: WireRoutes<L>;
  /** Authenticates the request and finds what it addresses; throws the API's refusal. */
  admit(req: IncomingMessage, params: Record<string, string>): Promise<L>;
  /** What a path or method no route answers is refused with (thrown, then rendered). */
  notFound(): unknown;
  errors: AreaErrors<ServerResponse>;
}

/** A wire API ready to serve: the requests whose path its mount matches. */
export interface WireApi {
  path: string;
  matches(path: string): boolean;
  serve(
    req: IncomingMessage,
    res: ServerResponse,
    target: RequestTarget,
    clientAddress: (req: IncomingMessage) => string,
  ): Promise<void>;
}

/** Parses the body as the API always has (express's JSON parser: any type, any JSON value). */
function bodyReader(limitBytes: number): (req: IncomingMessage, res: ServerResponse) => Promise<unknown> {
  const parse = express.json({ limit: limitBytes, type: () => true, strict: false });
  return (req, res) =>
    new Promise((resolve, reject) => {
      parse(req, res, (error?: unknown) => {
        if (error !== undefined) reject(error);
        else resolve((req as { body?: unknown }).body);
      });
    });
}

export function wireApi<L>(options: WireApiOptions<L>): WireApi {
  const mount = match<Record<string, string>>(options.path, {
    sensitive: false,
    end: false,
    trailing: true,
    decode: decodeParameter,
  });
  // Which API a path is for is asked before any answer can be written: without decoding, so it never throws.
  const mountShape = match(options.path, { sensitive: false, end: false, trailing: true, decode: false });
  const table = new RouteTable(options.routes.entries);
  const readBody = bodyReader(options.errors.limitBytes);
  return {
    path: options.path,
    matches: (path) => mountShape(path) !== false,
    async serve(req, res, target, clientAddress) {
      try {
        const mounted = mount(target.path);
        if (!mounted) throw options.notFound();
        const rest = target.path.slice(mounted.path.length) || '/';
        const locals = await options.admit(req, mounted.params);
        const body = await readBody(req, res);
        const found = table.lookup(req.method ?? 'GET', rest.startsWith('/') ? rest : `/${rest}`);
        if (found.kind !== 'route') throw options.notFound();
        const params: Record<string, string> = { ...mounted.params };
        for (const [name, value] of Object.entries(found.params))
          params[name] = Array.isArray(value) ? value.join('/') : value;
        const query = target.query === undefined ? {} : parseQuery(target.query);
        await found.entry.value(
          {
            method: req.method ?? 'GET',
            headers: req.headers,
            params,
            query,
            body,
            ip: clientAddress(req),
            locals,
          },
          res,
        );
      } catch (error) {
        answerAreaError(options.errors, error, req, res);
      }
    },
  };
}
