/**
 * Subscription patterns: an event type with `*` standing for one dot-separated segment
 * (`vpc.*`, `*.deleted`), or `*` alone for every type.
 */

/** A parsed pattern: its segments, or `every` for the lone `*`. */
export type EventPattern = { every: true } | { every: false; segments: readonly string[] };

const SEGMENT = /^(\*|[a-z0-9_]+)$/;

/** The pattern `text` spells, or `undefined` when it is not a pattern. */
export function parsePattern(text: string): EventPattern | undefined {
  if (text === '*') return { every: true };
  const segments = text.split('.');
  if (segments.length < 2 || !segments.every((segment) => SEGMENT.test(segment))) return undefined;
  return { every: false, segments };
}

export function patternMatches(pattern: EventPattern, type: string): boolean {
  if (pattern.every) return true;
  const segments = type.split('.');
  return (
    segments.length === pattern.segments.length &&
    pattern.segments.every((segment, index) => segment === '*' || segment === segments[index])
  );
}
