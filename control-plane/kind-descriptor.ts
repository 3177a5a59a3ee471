import type { ResourceType } from './types.js';

/** A column `kubectl get` shows, as the CRD's additionalPrinterColumns declare it. */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

/**
 * Everything about a kind that is not its TypeScript shape: how it is addressed and shown. The
 * CRD generator joins this with the JSON schema generated from the kind's `<Kind>Spec` and
 * `<Kind>Status` types.
 */
export interface KindDescriptor extends ResourceType {
  singular: string;
  shortNames: string[];
  categories: string[];
  printerColumns: PrinterColumn[];
  /** The file (relative to the repository root) that exports `<Kind>Spec` and `<Kind>Status`. */
  typesFile: string;
  /**
   * The structural OpenAPI v3 schema of the whole object. Filled from the generated CRD at
   * runtime (see crds/registry.ts) so the embedded store validates exactly what a real
   * apiserver would.
   */
  schema?: Record<string, unknown>;
}

export const GROUP = 'cloudplane.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
