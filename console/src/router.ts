/**
 * The console's router: the History API and path templates (`/vpcs/:id`). Small on purpose: the
 * console has a dozen pages and needs neither nested layouts nor lazy loading.
 */
import { useEffect, useState } from 'preact/hooks';

type Listener = () => void;
const listeners = new Set<Listener>();

function notify(): void {
  for (const listener of listeners) listener();
}

window.addEventListener('popstate', notify);

/** Goes to `to` (a path with its query), adding a history entry unless `replace`. */
export function navigate(to: string, { replace = false } = {}): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  notify();
  // A new page starts at the top, its heading focused for screen readers (see Page).
  window.scrollTo(0, 0);
}

export interface Location {
  path: string;
  query: URLSearchParams;
}

const current = (): Location => ({ path: location.pathname, query: new URLSearchParams(location.search) });

/** The current location, re-rendering the caller when it changes. */
export function useLocation(): Location {
  const [where, setWhere] = useState(current);
  useEffect(() => {
    const listener = () => setWhere(current());
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return where;
}

/** The parameters of `path` under `template`, or undefined when it does not match. */
export function matchPath(template: string, path: string): Record<string, string> | undefined {
  const want = template.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, segment] of want.entries()) {
    const actual = have[index]!;
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(actual);
    else if (segment !== actual) return undefined;
  }
  return params;
}

/** A click a link should take over: the main button, no modifier (those open a new tab or window). */
export function isPlainClick(event: MouseEvent): boolean {
  return event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;
}
