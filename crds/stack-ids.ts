/**
 * Stack and execution ids: `stk_` or `exec_` and 12 hex digits. The object name is the hyphen
 * form (`stk-…`), as Kubernetes names take no underscore; the REST id is the underscore form.
 */
import { randomBytes } from 'node:crypto';

export type StackIdPrefix = 'stk' | 'exec';

export function newStackId(prefix: StackIdPrefix): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** `stk_0a1b…` → `stk-0a1b…`; anything else is taken as an object name already. */
export function stackObjectNameOf(id: string): string {
  return /^(stk|exec)_[0-9a-f]{12}$/.test(id) ? id.replace('_', '-') : id;
}

/** `stk-0a1b…` → `stk_0a1b…`; names chosen with kubectl stay as they are. */
export function stackRestIdOf(name: string): string {
  return /^(stk|exec)-[0-9a-f]{12}$/.test(name) ? name.replace('-', '_') : name;
}
