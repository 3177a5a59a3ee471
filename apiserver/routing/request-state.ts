import type { IncomingMessage } from 'node:http';
import type { AnyRouteDefinition } from './route.js';
import type { Principal } from '../../accounts/principal.js';

/** What the framework learns about a request as it passes through. */
export interface RequestState {
  /** The matched route template (`/api/v1/vpcs/:id`); unset while no route matched. */
  template?: string;
  /** The declared route, when the method matched too. */
  route?: AnyRouteDefinition;
  principal?: Principal;
}

const STATE = Symbol('what the framework learnt about the request');

interface RequestWithState extends IncomingMessage {
  [STATE]?: RequestState;
}

// A property of the request rather than a WeakMap entry: read several times per request, and a
// WeakMap costs an ephemeron table entry per request for the collector.
export function requestState(req: IncomingMessage): RequestState {
  return ((req as RequestWithState)[STATE] ??= {});
}

/** The id the access log assigned the request. */
export function requestIdOf(req: IncomingMessage): string {
  return String(req.id);
}
