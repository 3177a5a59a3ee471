/** Record headers between kafkajs's shape (a value or a list of values per key) and a list in order. */
import type { IHeaders } from 'kafkajs';

export interface HeaderBytes {
  key: string;
  value: Buffer;
}

/** The headers of a consumed message, each value as bytes, repeated keys kept. */
export function headerListOf(headers: IHeaders | undefined): HeaderBytes[] {
  return Object.entries(headers ?? {}).flatMap(([key, value]) =>
    value === undefined
      ? []
      : (Array.isArray(value) ? value : [value]).map((each) => ({
          key,
          value: Buffer.isBuffer(each) ? each : Buffer.from(each),
        })),
  );
}

/** The headers to send, repeated keys as lists. */
export function kafkaHeadersOf(headers: readonly HeaderBytes[]): IHeaders {
  const sent: IHeaders = {};
  for (const header of headers) {
    const known = sent[header.key];
    sent[header.key] = known === undefined ? header.value : [...[known].flat(), header.value];
  }
  return sent;
}
