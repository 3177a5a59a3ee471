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
   * Spec fields whose values a registered list decides rather than the type (the database
   * engines): the generator writes them into the CRD as enums, and the runtime registry applies
   * them again so the embedded store takes what is registered when it starts.
   */
  specEnums?: () => Record<string, readonly string[]>;
  /**
   * The structural OpenAPI v3 schema of the whole object. Filled from the generated CRD at
   * runtime (see crds/registry.ts) so the embedded store validates exactly what a real
   * apiserver would.
   */
  schema?: Record<string, unknown>;
}

/** Why an object is or is not Ready, in CamelCase: every cloudplane kind shows it in `kubectl get`. */
export const READY_REASON_COLUMN: PrinterColumn = {
  name: 'Reason',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
  description: 'The reason of the Ready condition',
};

/** The Ready condition's sentence, for `kubectl get -o wide` of kinds without a message of their own. */
export const READY_MESSAGE_COLUMN: PrinterColumn = {
  name: 'Message',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].message',
  description: 'What the Ready condition says',
  priority: 1,
};

export const GROUP = 'cloudplane.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
