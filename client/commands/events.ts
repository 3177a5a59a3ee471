/**
 * `events`: follows the organization's event stream (`/v1/events/stream`, a WebSocket opened with
 * a one-use ticket from `/v1/events/tickets`). A close that asks the client to come back (1013, or
 * the connection dropping) reconnects with `since` the last event seen, so nothing is missed.
 */
import { Command } from 'commander';
import WebSocket from 'ws';
import { dataOf } from '../../sdk/index.js';
import { ClientError } from '../failures.js';
import { Invocation, withExamples, type ClientEnvironment } from '../invocation.js';

interface CloudEvent {
  id: string;
  type: string;
  time: string;
  subject: string;
  data: unknown;
}

/** Close codes after which the stream is not opened again: the subscription itself was refused. */
const POLICY_VIOLATION = 1008;
const RECONNECT_MS = 1000;

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The stream's URL for a ticket: `http(s)` becomes `ws(s)`. */
export function streamUrl(server: string, ticket: string): string {
  const url = new URL('/v1/events/stream', server);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('ticket', ticket);
  return url.toString();
}

interface EventsFlags {
  type?: string[];
  since?: string;
  limit?: number;
}

export function eventsCommand(environment: ClientEnvironment): Command {
  const command = new Command('events')
    .description("follow the organization's events as they happen (Ctrl-C stops)")
    .option('--type <pattern>', 'only events matching, e.g. vpc.* or database.created (repeatable)', collect)
    .option('--since <id>', 'first replay the retained events after this event id')
    .option('--limit <n>', 'stop after this many events', (value) => Number(value))
    .action(async (flags: EventsFlags, cmd: Command) => {
      const run = Invocation.of(cmd, environment);
      const api = run.api();
      const server = run.sessionOf().target.server;
      const patterns = flags.type ?? ['*'];
      let since = flags.since;
      let received = 0;
      const show = (event: CloudEvent) => {
        if (run.format === 'table') {
          run.terminal.out(
            `${event.time}  ${event.id.padStart(6)}  ${event.type.padEnd(24)}  ${event.subject}\n`,
          );
        } else {
          // One event per line (NDJSON), so a pipe can read them as they come.
          run.terminal.out(`${JSON.stringify(event)}\n`);
        }
      };
      for (;;) {
        const { ticket } = dataOf(await api.POST('/v1/events/tickets'));
        const outcome = await new Promise<'done' | 'reconnect'>((resolve, reject) => {
          const socket = new WebSocket(streamUrl(server, ticket));
          socket.on('open', () =>
            socket.send(JSON.stringify({ subscribe: patterns, ...(since && { since }) })),
          );
          socket.on('message', (raw) => {
            const message = JSON.parse(String(raw)) as Partial<CloudEvent> & { heartbeat?: string };
            if (message.heartbeat !== undefined || message.id === undefined) return;
            since = message.id;
            show(message as CloudEvent);
            received++;
            if (flags.limit !== undefined && received >= flags.limit) {
              socket.close(1000);
              resolve('done');
            }
          });
          socket.on('unexpected-response', (_request, response) => {
            reject(
              new ClientError(
                `the event stream answered ${response.statusCode} ${response.statusMessage ?? ''}`,
              ),
            );
          });
          socket.on('error', (error) => reject(error));
          socket.on('close', (code, reason) => {
            if (code === POLICY_VIOLATION)
              reject(new ClientError(`the event stream refused: ${reason.toString()}`));
            else resolve('reconnect');
          });
        });
        if (outcome === 'done') return;
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
      }
    });
  return withExamples(command, [
    'cloudplane events',
    "cloudplane events --type 'vpc.*' --type 'database.*'",
    'cloudplane events -o json --since 42 | jq .type',
  ]);
}
