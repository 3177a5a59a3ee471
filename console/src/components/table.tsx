/** A table of resources in its scrollable, keyboard-reachable region, and the list page around one. */
import type { ComponentChildren, JSX } from 'preact';
import { EmptyRow, ErrorNotice, Page } from './ui.tsx';

/** A column's heading; numbers are aligned right by their `number` class. */
export type Column = string | { label: string; number: true };

/**
 * `label` names the region (and is the caption when `caption` is set); `columns` head the table,
 * with one more hidden "Actions" column when `actions` is set; `empty` stands in for no rows;
 * `footer` holds the rows of a total.
 */
export interface ResourceTableProps<T> {
  label: string;
  caption?: boolean;
  columns: readonly Column[];
  actions?: boolean;
  rows: readonly T[] | undefined;
  empty: ComponentChildren;
  row: (item: T, index: number) => JSX.Element;
  testId?: string;
  footer?: ComponentChildren;
}

export function ResourceTable<T>({
  label,
  caption = false,
  columns,
  actions = false,
  rows,
  empty,
  row,
  testId,
  footer,
}: ResourceTableProps<T>) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table data-testid={testId}>
        {caption && <caption>{label}</caption>}
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === 'string' ? (
                <th key={column} scope="col">
                  {column}
                </th>
              ) : (
                <th key={column.label} scope="col" class="number">
                  {column.label}
                </th>
              ),
            )}
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
        {footer && <tfoot>{footer}</tfoot>}
      </table>
    </div>
  );
}

/** A list page: its title, the form that creates one (if any), the list's error, then the table. */
export function ListPage<T>({
  title,
  create,
  error,
  ...table
}: { title: string; create?: ComponentChildren; error: unknown } & ResourceTableProps<T>) {
  return (
    <Page title={title}>
      {create}
      <ErrorNotice error={error} />
      <ResourceTable {...table} />
    </Page>
  );
}
