/** The client's first message, `{"subscribe": [patterns], "since": "<event id>"}`, read strictly. */
import { parsePattern, patternMatches, type EventPattern } from './patterns.js';

/** The most patterns one subscription may name. */
const MAX_PATTERNS = 100;

/** A close reason is at most 123 bytes: quoted client input is cut short. */
const QUOTED_LENGTH = 40;

export interface Subscription {
  patterns: readonly EventPattern[];
  /** Replay events after this sequence number (exclusive); absent: only what happens from now. */
  since?: number;
}

/** Why a subscription was refused; its message is the close reason the client reads. */
export class SubscriptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SubscriptionError';
  }
}

function quoted(value: string): string {
  const cut = value.length > QUOTED_LENGTH ? `${value.slice(0, QUOTED_LENGTH)}…` : value;
  return JSON.stringify(cut);
}

function parseJsonObject(text: string): Record<string, unknown> {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    throw new SubscriptionError('the first message must be JSON: {"subscribe": [patterns]}');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    throw new SubscriptionError('the first message must be an object: {"subscribe": [patterns]}');
  }
  return message as Record<string, unknown>;
}

function parsePatterns(value: unknown): EventPattern[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_PATTERNS) {
    throw new SubscriptionError(`subscribe must list 1 to ${MAX_PATTERNS} patterns`);
  }
  return value.map((entry: unknown) => {
    const pattern = typeof entry === 'string' ? parsePattern(entry) : undefined;
    if (!pattern) {
      const shown = typeof entry === 'string' ? quoted(entry) : typeof entry;
      throw new SubscriptionError(`${shown} is not a pattern such as "vpc.*" or "*"`);
    }
    return pattern;
  });
}

function parseSince(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,15}$/.test(text)) {
    throw new SubscriptionError('since must be the id of an event, such as "42"');
  }
  return Number(text);
}

export function parseSubscription(text: string): Subscription {
  const message = parseJsonObject(text);
  return { patterns: parsePatterns(message.subscribe), since: parseSince(message.since) };
}

export function subscriptionSelects(subscription: Subscription, type: string): boolean {
  return subscription.patterns.some((pattern) => patternMatches(pattern, type));
}
