import type { Capability, PathRule } from './policy-parser.js';

/** A path pattern with the capabilities every policy of a token grants on it, merged. */
interface MergedRule {
  pattern: string;
  capabilities: Set<Capability>;
}

function matches(pattern: string, path: string): boolean {
  const glob = pattern.endsWith('*');
  const body = glob ? pattern.slice(0, -1) : pattern;
  const patternSegments = body.split('/');
  const pathSegments = path.split('/');
  if (!glob && patternSegments.length !== pathSegments.length) return false;
  if (glob && pathSegments.length < patternSegments.length) return false;
  for (let index = 0; index < patternSegments.length; index++) {
    const expected = patternSegments[index]!;
    const actual = pathSegments[index]!;
    const last = index === patternSegments.length - 1;
    if (expected === '+') {
      if (actual === '') return false;
      continue;
    }
    if (last && glob) {
      if (!actual.startsWith(expected)) return false;
    } else if (expected !== actual) {
      return false;
    }
  }
  return true;
}

function firstWildcard(pattern: string): number {
  const plus = /(^|\/)\+(\/|$)/.exec(pattern);
  const plusAt = plus ? plus.index + plus[1]!.length : Infinity;
  const starAt = pattern.endsWith('*') ? pattern.length - 1 : Infinity;
  return Math.min(plusAt, starAt);
}

const plusCount = (pattern: string): number => pattern.split('/').filter((segment) => segment === '+').length;

/**
 * Vault's priority between two patterns matching the same path: positive when `a` is the more
 * specific. In order: the later first wildcard wins; a pattern not ending in `*` beats one that
 * does; fewer `+` segments win; the longer pattern wins; the lexicographically greater wins.
 */
export function comparePriority(a: string, b: string): number {
  const wildcardA = firstWildcard(a);
  const wildcardB = firstWildcard(b);
  if (wildcardA !== wildcardB) return wildcardA > wildcardB ? 1 : -1;
  const globA = a.endsWith('*');
  const globB = b.endsWith('*');
  if (globA !== globB) return globA ? -1 : 1;
  const plusA = plusCount(a);
  const plusB = plusCount(b);
  if (plusA !== plusB) return plusA < plusB ? 1 : -1;
  if (a.length !== b.length) return a.length > b.length ? 1 : -1;
  return a === b ? 0 : a > b ? 1 : -1;
}

/**
 * The capabilities a set of policies grants on `path`, with Vault's semantics: rules for the same
 * pattern across policies are merged and `deny` among them wins; of the patterns that match, only
 * the most specific applies; no match grants nothing.
 */
export function capabilitiesOn(policies: readonly (readonly PathRule[])[], path: string): Set<Capability> {
  const merged = new Map<string, MergedRule>();
  for (const rules of policies) {
    for (const rule of rules) {
      const entry = merged.get(rule.pattern) ?? {
        pattern: rule.pattern,
        capabilities: new Set<Capability>(),
      };
      for (const capability of rule.capabilities) entry.capabilities.add(capability);
      merged.set(rule.pattern, entry);
    }
  }
  let best: MergedRule | undefined;
  for (const rule of merged.values()) {
    if (!matches(rule.pattern, path)) continue;
    if (!best || comparePriority(rule.pattern, best.pattern) > 0) best = rule;
  }
  if (!best || best.capabilities.has('deny')) return new Set();
  return new Set(best.capabilities);
}

/** Whether the policies allow `capability` on `path`. */
export function isAllowed(
  policies: readonly (readonly PathRule[])[],
  path: string,
  capability: Capability,
): boolean {
  return capabilitiesOn(policies, path).has(capability);
}
