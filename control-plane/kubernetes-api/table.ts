import type { PrinterColumn } from '../kind-descriptor.js';
import type { KubeObject } from '../types.js';
import { computedColumnsOf, type ComputedColumn } from './event-table.js';
import { evaluateJsonPath } from './json-path.js';
import { objectAge } from './object-age.js';
import type { ServedResource } from './served-resources.js';

/**
 * `meta.k8s.io/v1` Table: what `kubectl get` prints. Columns are Name, the kind's printer
 * columns and Age; cells are computed here as a kube-apiserver computes them for a CRD, dates
 * as ages.
 */

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  object?: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: 'meta.k8s.io/v1';
  metadata: { resourceVersion?: string; continue?: string };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** What each row carries of its object (`includeObject`); kubectl asks for `Metadata`. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableOptions {
  includeObject: IncludeObject;
  now: Date;
  resourceVersion?: string;
  continue?: string;
}

const NAME_COLUMN: TableColumnDefinition = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
  priority: 0,
};

const AGE_COLUMN: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'The time since the object was created.',
};

export function partialObjectMetadata(object: KubeObject): {
  kind: 'PartialObjectMetadata';
  apiVersion: 'meta.k8s.io/v1';
  metadata: KubeObject['metadata'];
} {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata };
}

function columnsOf(resource: ServedResource): PrinterColumn[] {
  const columns = resource.descriptor.printerColumns;
  return columns.some((column) => column.name === 'Age') ? columns : [...columns, AGE_COLUMN];
}

function cellOf(column: PrinterColumn, object: KubeObject, now: Date): unknown {
  const value = evaluateJsonPath(object, column.jsonPath);
  if (value === undefined || value === null) return null;
  switch (column.type) {
    case 'date':
      return typeof value === 'string' ? objectAge(value, now) : null;
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    default:
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

function rowObject(object: KubeObject, include: IncludeObject): unknown {
  if (include === 'Object') return object;
  if (include === 'Metadata') return partialObjectMetadata(object);
  return undefined;
}

/** A table of computed columns (Events): no Name and Age columns of their own, as kube prints them. */
function computedTable(
  columns: readonly ComputedColumn[],
  objects: readonly KubeObject[],
  options: TableOptions,
  metadata: Table['metadata'],
): Table {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: columns.map(({ name, type, description, priority }) => ({
      name,
      type,
      format: '',
      description,
      priority,
    })),
    rows: objects.map((object) => {
      const row: TableRow = { cells: columns.map((column) => column.cell(object, options.now)) };
      const included = rowObject(object, options.includeObject);
      if (included !== undefined) row.object = included;
      return row;
    }),
  };
}

export function tableOf(
  resource: ServedResource,
  objects: readonly KubeObject[],
  options: TableOptions,
): Table {
  const metadata: Table['metadata'] = {};
  if (options.resourceVersion !== undefined) metadata.resourceVersion = options.resourceVersion;
  if (options.continue !== undefined) metadata.continue = options.continue;
  const computed = computedColumnsOf(resource);
  if (computed !== undefined) return computedTable(computed, objects, options, metadata);
  const columns = columnsOf(resource);
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: [
      NAME_COLUMN,
      ...columns.map((column) => ({
        name: column.name,
        type: column.type,
        format: '',
        description: column.description ?? '',
        priority: column.priority ?? 0,
      })),
    ],
    rows: objects.map((object) => {
      const row: TableRow = {
        cells: [object.metadata.name, ...columns.map((column) => cellOf(column, object, options.now))],
      };
      const included = rowObject(object, options.includeObject);
      if (included !== undefined) row.object = included;
      return row;
    }),
  };
}

export function includeObjectOf(value: unknown): IncludeObject {
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}
