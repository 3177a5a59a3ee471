/**
 * Live updates from the platform's event stream (`GET /v1/events/stream`). Browsers cannot set
 * headers on a WebSocket, so each connection first asks for a one-use ticket; after a drop it
 * reconnects with a fresh ticket and `since` the last event seen, so nothing is missed while the
 * event is retained. Pages subscribe to event-type patterns and reload what they show.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { dataOf } from '../../sdk/index.ts';
import { api } from './session.ts';

export interface PlatformEvent {
  id: string;
  type: string;
  subject?: string;
  time: string;
  data?: Record<string, unknown>;
}

export type Connection = 'connecting' | 'live' | 'offline';

type EventListener = (event: PlatformEvent) => void;
const eventListeners = new Set<EventListener>();
const connectionListeners = new Set<(state: Connection) => void>();
let connection: Connection = 'offline';
let socket: WebSocket | undefined;
let lastEventId: string | undefined;
let retryDelayMs = 1000;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let running = false;

function setConnection(next: Connection): void {
  connection = next;
  for (const listener of connectionListeners) listener(next);
}

async function connect(): Promise<void> {
  if (!running) return;
  setConnection('connecting');
  try {
    const { ticket } = dataOf(await api.POST('/v1/events/tickets'));
    if (!running) return;
    const url = new URL('/v1/events/stream', location.href);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('ticket', ticket);
    const opened = new WebSocket(url);
    socket = opened;
    opened.onopen = () => {
      opened.send(JSON.stringify({ subscribe: ['*'], ...(lastEventId ? { since: lastEventId } : {}) }));
      retryDelayMs = 1000;
      setConnection('live');
    };
    opened.onmessage = (message) => {
      const event = JSON.parse(String(message.data)) as Partial<PlatformEvent> & { heartbeat?: string };
      if (!event.id || !event.type) return;
      lastEventId = event.id;
      for (const listener of eventListeners) listener(event as PlatformEvent);
    };
    opened.onclose = () => {
      if (socket === opened) retry();
    };
  } catch {
    retry();
  }
}

/** Tries again after 1 s, doubling up to 30 s while it keeps failing. */
function retry(): void {
  socket = undefined;
  if (!running) return;
  setConnection('offline');
  clearTimeout(retryTimer);
  retryTimer = setTimeout(() => void connect(), retryDelayMs);
  retryDelayMs = Math.min(retryDelayMs * 2, 30_000);
}

/** Opens the stream for the signed-in user; `stop` closes it on sign-out or an organization switch. */
export function startLive(): void {
  if (running) return;
  running = true;
  void connect();
}

export function stopLive(): void {
  running = false;
  lastEventId = undefined;
  clearTimeout(retryTimer);
  const closing = socket;
  socket = undefined;
  closing?.close();
  setConnection('offline');
}

/** Calls `onEvent` for each event of the resource families named (`vpc` for `vpc.available`, …). */
export function useEvents(families: readonly string[], onEvent: EventListener): void {
  const latest = useRef({ families, onEvent });
  latest.current = { families, onEvent };
  useEffect(() => {
    const listener: EventListener = (event) => {
      const family = event.type.slice(0, event.type.indexOf('.'));
      if (latest.current.families.includes(family)) latest.current.onEvent(event);
    };
    eventListeners.add(listener);
    return () => void eventListeners.delete(listener);
  }, []);
}

export function useConnection(): Connection {
  const [state, setState] = useState(connection);
  useEffect(() => {
    connectionListeners.add(setState);
    setState(connection);
    return () => void connectionListeners.delete(setState);
  }, []);
  return state;
}
