/**
 * A stack's plan as a diff, the way Terraform shows one: `+` create, `~` update, `-/+` replace,
 * `-` delete, each with the fields that change (`old → new`), then the summary.
 */
import type { Colors } from './terminal.js';

export type ChangeType = 'create' | 'update' | 'replace' | 'delete';

export interface PlanChange {
  type?: ChangeType;
  resource?: string;
  details?: Record<string, unknown>;
}

export interface Plan {
  changes?: PlanChange[];
  summary?: Partial<Record<ChangeType | 'unchanged', number>>;
  plan_digest?: string;
}

const MARKS: Record<ChangeType, { mark: string; color: keyof Colors }> = {
  create: { mark: '+', color: 'green' },
  update: { mark: '~', color: 'yellow' },
  replace: { mark: '-/+', color: 'magenta' },
  delete: { mark: '-', color: 'red' },
};

/** A value as JSON, but the plan's placeholders (`(sensitive)`, `(known after apply)`) bare. */
const shown = (value: unknown): string =>
  typeof value === 'string' && /^\(.*\)$/.test(value) ? value : JSON.stringify(value ?? null);

function fieldLine(type: ChangeType, field: string, change: unknown): string {
  const { old, new: next } = (change ?? {}) as { old?: unknown; new?: unknown };
  if (type === 'create') return `${field}: ${shown(next)}`;
  if (type === 'delete') return `${field}: ${shown(old)}`;
  return `${field}: ${shown(old)} → ${shown(next)}`;
}

export function renderPlan(plan: Plan, colors: Colors): string {
  const changes = plan.changes ?? [];
  const lines: string[] = [];
  if (changes.length === 0) lines.push('No changes: the stack matches its template.');
  for (const change of changes) {
    const type = change.type ?? 'update';
    const { mark, color } = MARKS[type];
    lines.push(colors[color](`${mark} ${change.resource ?? '?'}`) + colors.dim(` (${type})`));
    for (const [field, values] of Object.entries(change.details ?? {})) {
      lines.push(`    ${fieldLine(type, field, values)}`);
    }
  }
  const summary = plan.summary ?? {};
  lines.push(
    '',
    `Plan: ${summary.create ?? 0} to create, ${summary.update ?? 0} to update, ${summary.replace ?? 0} to replace, ` +
      `${summary.delete ?? 0} to delete, ${summary.unchanged ?? 0} unchanged.`,
  );
  if (plan.plan_digest) lines.push(colors.dim(`Digest: ${plan.plan_digest}`));
  return `${lines.join('\n')}\n`;
}
