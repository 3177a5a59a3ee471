/**
 * A stack's plan as a diff, the way infrastructure tools print one: `+` create, `~` update,
 * `-` delete, `-/+` replace, each changed field with its old and new value.
 */

export type ChangeType = 'create' | 'update' | 'replace' | 'delete';

export const CHANGE_SYMBOLS: Record<ChangeType, string> = {
  create: '+',
  update: '~',
  delete: '-',
  replace: '-/+',
};

export interface PlanChange {
  type?: ChangeType;
  resource?: string;
  details?: Record<string, unknown>;
}

export interface FieldChange {
  path: string;
  old: string;
  new: string;
}

export interface DiffLine {
  symbol: string;
  type: ChangeType;
  resource: string;
  fields: FieldChange[];
}

/** A plan value as shown: strings as they are (`(sensitive)`, `(known after apply)`), others as JSON. */
export function shownValue(value: unknown): string {
  if (value === undefined) return '(none)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const isFieldChange = (value: unknown): value is { old?: unknown; new?: unknown } =>
  typeof value === 'object' && value !== null && ('old' in value || 'new' in value);

/** The plan's changes as diff lines, in the plan's order; a detail that is not `{old, new}` is left out. */
export function planDiff(changes: readonly PlanChange[]): DiffLine[] {
  return changes.flatMap((change) => {
    if (!change.type || !change.resource) return [];
    const fields = Object.entries(change.details ?? {}).flatMap(([path, value]) =>
      isFieldChange(value) ? [{ path, old: shownValue(value.old), new: shownValue(value.new) }] : [],
    );
    return [{ symbol: CHANGE_SYMBOLS[change.type], type: change.type, resource: change.resource, fields }];
  });
}

/** `1 to create, 1 to update, 0 to replace, 0 to delete, 2 unchanged`. */
export function planSummary(summary: Partial<Record<ChangeType | 'unchanged', number>>): string {
  const counts = (['create', 'update', 'replace', 'delete'] as const).map(
    (type) => `${summary[type] ?? 0} to ${type}`,
  );
  return [...counts, `${summary.unchanged ?? 0} unchanged`].join(', ');
}

export interface TemplateProblem {
  path: string;
  message: string;
}

/**
 * Where a refused template is wrong, from the API's error details: each of `problems`, or the one
 * `field`, with the error's message.
 */
export function templateProblems(message: string, details: Record<string, unknown>): TemplateProblem[] {
  const problems = Array.isArray(details.problems) ? details.problems : [];
  const listed = problems.flatMap((problem: unknown) => {
    if (typeof problem !== 'object' || problem === null) return [];
    const { path, message: text } = problem as { path?: unknown; message?: unknown };
    return typeof path === 'string' ? [{ path, message: typeof text === 'string' ? text : message }] : [];
  });
  if (listed.length > 0) return listed;
  return typeof details.field === 'string' ? [{ path: details.field, message }] : [];
}

/** The template text as JSON, or where it stops being JSON. */
export function parseTemplate(
  text: string,
): { template: Record<string, unknown> } | { problem: TemplateProblem } {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return { problem: { path: 'template', message: 'the template is a JSON object' } };
    }
    return { template: parsed as Record<string, unknown> };
  } catch (error) {
    return { problem: { path: 'template', message: `not JSON: ${(error as Error).message}` } };
  }
}
