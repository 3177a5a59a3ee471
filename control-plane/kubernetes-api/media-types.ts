import { notAcceptable } from './kube-status.js';

/** How a read answers: the objects themselves, a `Table` for kubectl's printer, or metadata only. */
export type Representation = 'Object' | 'Table' | 'PartialObjectMetadata';

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

const ACCEPTED = ['application/json', 'application/json;as=Table;v=v1;g=meta.k8s.io'];

/** Splits an Accept or Content-Type header into media ranges with lower-cased types and parameters. */
export function parseMediaRanges(header: string | undefined): MediaRange[] {
  if (header === undefined || header.trim() === '') return [];
  return header.split(',').map((entry) => {
    const [type = '', ...parameters] = entry.split(';').map((part) => part.trim());
    const params: Record<string, string> = {};
    for (const parameter of parameters) {
      const equals = parameter.indexOf('=');
      if (equals > 0) params[parameter.slice(0, equals).toLowerCase()] = parameter.slice(equals + 1).trim();
    }
    return { type: type.toLowerCase(), params };
  });
}

function isJson(range: MediaRange): boolean {
  return range.type === 'application/json' || range.type === '*/*' || range.type === 'application/*';
}

/**
 * The representation the client asks for, first servable range first: kubectl asks for a Table,
 * then plain JSON; metadata-only clients for PartialObjectMetadata. Nothing servable is a 406.
 */
export function negotiate(accept: string | undefined): Representation {
  const ranges = parseMediaRanges(accept);
  if (ranges.length === 0) return 'Object';
  for (const range of ranges) {
    if (!isJson(range)) continue;
    const { as, g, v } = range.params;
    if (as === undefined) return 'Object';
    if (g !== 'meta.k8s.io' || (v !== 'v1' && v !== 'v1beta1')) continue;
    if (as === 'Table') return 'Table';
    if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return 'PartialObjectMetadata';
  }
  throw notAcceptable(ACCEPTED);
}

/** Whether the client takes the aggregated discovery document (`apidiscovery.k8s.io/v2`). */
export function wantsAggregatedDiscovery(accept: string | undefined): boolean {
  for (const range of parseMediaRanges(accept)) {
    if (!isJson(range)) continue;
    const { as, g, v } = range.params;
    if (as === undefined) return false;
    if (as === 'APIGroupDiscoveryList' && g === 'apidiscovery.k8s.io' && v === 'v2') return true;
  }
  return false;
}

/** The media type of a request body, without parameters: `application/merge-patch+json`. */
export function contentTypeOf(header: string | undefined): string {
  return parseMediaRanges(header)[0]?.type ?? '';
}
