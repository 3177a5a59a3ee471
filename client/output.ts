/**
 * `-o table|json|yaml`: tables for people (the default on a terminal), JSON for programs (the
 * default when stdout is not a terminal), YAML on request. JSON and YAML print the API's answer
 * as it came; a table shows the columns a command chose.
 */
import { stringify } from 'yaml';
import { UsageError } from './failures.js';

export type OutputFormat = 'table' | 'json' | 'yaml';

export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'yaml'];

/** The format asked for, else table on a terminal and JSON elsewhere. */
export function outputFormat(asked: string | undefined, stdoutIsTty: boolean): OutputFormat {
  if (asked === undefined) return stdoutIsTty ? 'table' : 'json';
  if (!(OUTPUT_FORMATS as readonly string[]).includes(asked)) {
    throw new UsageError(`-o must be one of ${OUTPUT_FORMATS.join(', ')}, not ${JSON.stringify(asked)}`);
  }
  return asked as OutputFormat;
}

/** A column of a table: its header and how a row shows in it. */
export interface Column<Row> {
  header: string;
  value(row: Row): unknown;
}

/** How a cell reads: empty for nothing, lists joined, objects as compact JSON. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(cellText).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Rows under upper-case headers, columns padded to their widest cell. */
export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const cells = rows.map((row) => columns.map((column) => cellText(column.value(row)).replace(/\s+/g, ' ')));
  const headers = columns.map((column) => column.header.toUpperCase());
  const widths = headers.map((header, index) =>
    Math.max(header.length, ...cells.map((line) => line[index]!.length)),
  );
  const line = (values: readonly string[]) =>
    values
      .map((value, index) => (index === values.length - 1 ? value : value.padEnd(widths[index]!)))
      .join('   ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].map((text) => `${text}\n`).join('');
}

/** One object as `field: value` lines, fields aligned. */
export function renderFields(fields: readonly [string, unknown][]): string {
  const width = Math.max(0, ...fields.map(([name]) => name.length));
  return fields.map(([name, value]) => `${`${name}:`.padEnd(width + 1)} ${cellText(value)}\n`).join('');
}

/** The answer in a machine format. */
export function renderData(data: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? `${JSON.stringify(data, null, 2)}\n` : stringify(data);
}
