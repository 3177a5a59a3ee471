/** The console's building blocks: page frame, error notice, status badge, form field, loader hook. */
import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { CloudplaneError } from '../../../sdk/index.ts';
import { useEvents } from '../live.ts';

/** A page: its title as the one `h1`, focused on arrival so screen readers announce the new page. */
export function Page({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ComponentChildren;
  children: ComponentChildren;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => {
    document.title = `${title} · cloudplane`;
    heading.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-header">
        <h1 id="page-title" tabIndex={-1} ref={heading}>
          {title}
        </h1>
        {actions && <div class="page-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

/** An API error as the API told it: its message, and the request id an operator can look up. */
export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const requestId = error instanceof CloudplaneError ? error.requestId : undefined;
  return (
    <div class="notice notice-error" role="alert">
      <p>{message}</p>
      {requestId && (
        <p class="request-id">
          Request id: <code>{requestId}</code>
        </p>
      )}
    </div>
  );
}

const STATUS_TONES: Record<string, string> = {
  available: 'good',
  running: 'good',
  ready: 'good',
  active: 'good',
  completed: 'good',
  succeeded: 'good',
  connected: 'good',
  passed: 'good',
  applied: 'good',
  unsealed: 'good',
  provisioning: 'busy',
  pending: 'busy',
  planning: 'busy',
  applying: 'busy',
  deleting: 'busy',
  initializing: 'busy',
  recorded: 'muted',
  sealed: 'warn',
  degraded: 'warn',
  error: 'bad',
  failed: 'bad',
};

/** A status word with its tone; the word itself carries the meaning, never the colour alone. */
export function StatusBadge({ status }: { status: string | null | undefined }) {
  const word = status ?? 'unknown';
  return (
    <span class={`badge badge-${STATUS_TONES[word] ?? 'muted'}`} data-status={word}>
      {word}
    </span>
  );
}

/** A labelled form control; the hint and error are tied to it for assistive technology. */
export function Field({
  label,
  hint,
  children,
  id,
}: {
  label: string;
  hint?: string;
  id: string;
  children: (describedBy: string | undefined) => JSX.Element;
}) {
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children(hintId)}
      {hint && (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads `load()` now and again whenever an event of one of `families` arrives, so a status shown
 * changes without a page reload.
 */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: readonly unknown[],
  families: readonly string[] = [],
): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const run = useCallback(() => {
    const mine = ++generation.current;
    setLoading(true);
    load().then(
      (value) => {
        if (mine !== generation.current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (mine !== generation.current) return;
        setError(failure);
        setLoading(false);
      },
    );
    // `load` is the caller's closure over `deps`: it changes when they do.
  }, deps);
  useEffect(run, [run]);
  useEvents(families, run);
  return { data, error, loading, reload: run };
}

/**
 * Reads again every `intervalMs` while `pending` holds: for changes the event stream does not
 * carry (a topic becoming ready, an execution's steps).
 */
export function useRefreshWhile(pending: boolean, reload: () => void, intervalMs = 1000): void {
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(reload, intervalMs);
    return () => clearInterval(timer);
  }, [pending, reload, intervalMs]);
}

/** Runs an action, keeping its busy state and error for the form that started it. */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (...args: A) => {
    setBusy(true);
    setError(undefined);
    try {
      await action(...args);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function EmptyRow({ columns, children }: { columns: number; children: ComponentChildren }) {
  return (
    <tr>
      <td colSpan={columns} class="empty">
        {children}
      </td>
    </tr>
  );
}
