/** A table of resources in its scrollable, keyboard-reachable region. */
import type { ComponentChildren, JSX } from 'preact';
import { EmptyRow } from './ui.tsx';

/**
 * `label` names the region (and is the caption when `caption` is set); `columns` head the table,
 * with one more hidden "Actions" column when `actions` is set; `empty` stands in for no rows.
 */
export function ResourceTable<T>({
  label,
  caption = false,
  columns,
  actions = false,
  rows,
  empty,
  row,
}: {
  label: string;
  caption?: boolean;
  columns: readonly string[];
  actions?: boolean;
  rows: readonly T[] | undefined;
  empty: ComponentChildren;
  row: (item: T) => JSX.Element;
}) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table>
        {caption && <caption>{label}</caption>}
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            {actions && (
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {rows?.length === 0 && <EmptyRow columns={columns.length + (actions ? 1 : 0)}>{empty}</EmptyRow>}
          {rows?.map(row)}
        </tbody>
      </table>
    </div>
  );
}
