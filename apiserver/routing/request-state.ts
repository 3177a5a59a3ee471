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

const states = new WeakMap<IncomingMessage, RequestState>();

export function requestState(req: IncomingMessage): RequestState {
  let state = states.get(req);
  if (!state) {
    state = {};
    states.set(req, state);
  }
  return state;
}

/** The id the access log assigned the request. */
export function requestIdOf(req: IncomingMessage): string {
  return String(req.id);
}
