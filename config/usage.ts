import fs from 'node:fs';
import { ConfigError, type Env } from './env.js';

/**
 * A price as a ratio of integers: `cents` for every `per` units of a meter. Prices below a cent per
 * unit (a GB-hour of storage) stay exact this way; amounts are rounded once, per line item.
 */
export interface UnitPrice {
  cents: number;
  per: number;
}

/** A streaming tier of the spec's table: a monthly price prorated by the hour, storage included in it. */
export interface StreamingTierPrice {
  monthlyCents: number;
  includedStorageGb: number;
  /** Per GB-month beyond the included storage, prorated by the hour like the monthly price. */
  overageCentsPerGbMonth: number;
}

export interface PriceList {
  /** The hourly meters priced per unit: `database.storage_gb_hours`, `nfs.gb_hours`, … */
  meters: Record<string, UnitPrice>;
  /** `streaming.cluster_hours` and `streaming.storage_gb_hours`, by the cluster's tier. */
  streamingTiers: Record<string, StreamingTierPrice>;
}

/** What usage is priced at. */
export interface UsageConfig {
  /** A price list file replacing the defaults (`CLOUDPLANE_PRICE_LIST`); absent: the defaults. */
  priceListFile: string | undefined;
  /** The defaults with the file's entries over them, checked at start-up. */
  prices: PriceList;
}

/** The meters the platform records, hourly. */
export const USAGE_METERS = [
  'database.storage_gb_hours',
  'database.memory_mb_hours',
  'streaming.cluster_hours',
  'streaming.storage_gb_hours',
  'streaming.transfer_cross_region_gb',
  'streaming.registry_schema_hours',
  'nfs.gb_hours',
  'backup.storage_gb_hours',
  'vault.secret_hours',
  'vpc.nat_gateway_hours',
] as const;

/** A month of the defaults' monthly rates: 730 hours, the usual cloud convention. */
const MONTH_HOURS = 730;

/**
 * The defaults. Monthly rates are written per `MONTH_HOURS` unit-hours; memory per GiB-month
 * (1024 MB × 730 hours). The streaming tiers and the cross-region transfer are the spec's; the
 * enterprise tier is priced by contract, so only a price list file can give it a price.
 */
export const DEFAULT_PRICE_LIST: PriceList = {
  meters: {
    'database.storage_gb_hours': { cents: 20, per: MONTH_HOURS },
    'database.memory_mb_hours': { cents: 500, per: 1024 * MONTH_HOURS },
    'nfs.gb_hours': { cents: 30, per: MONTH_HOURS },
    'backup.storage_gb_hours': { cents: 5, per: MONTH_HOURS },
    'vault.secret_hours': { cents: 40, per: MONTH_HOURS },
    'streaming.transfer_cross_region_gb': { cents: 2, per: 1 },
    // Counted, and included in the tier unless a price list says otherwise.
    'streaming.registry_schema_hours': { cents: 0, per: MONTH_HOURS },
    // 4.5 cents an hour, as NAT gateways are commonly priced.
    'vpc.nat_gateway_hours': { cents: 45, per: 10 },
  },
  streamingTiers: {
    starter: { monthlyCents: 2900, includedStorageGb: 10, overageCentsPerGbMonth: 10 },
    pro: { monthlyCents: 9900, includedStorageGb: 100, overageCentsPerGbMonth: 8 },
  },
};

/** Meters priced by the streaming tier table rather than per unit. */
const TIER_PRICED = new Set<string>(['streaming.cluster_hours', 'streaming.storage_gb_hours']);
const VARIABLE = 'CLOUDPLANE_PRICE_LIST';

export function usageConfig(env: Env): UsageConfig {
  const priceListFile = env[VARIABLE]?.trim() || undefined;
  return {
    priceListFile,
    prices: priceListFile === undefined ? DEFAULT_PRICE_LIST : readPriceList(priceListFile),
  };
}

/**
 * The price list file: `{"meters": {"<meter>": {"cents": n, "per": n}}, "streaming_tiers":
 * {"<tier>": {"monthly_cents": n, "included_storage_gb": n, "overage_cents_per_gb_month": n}}}`,
 * every number a non-negative integer (`per` positive). Entries replace the defaults one by one.
 */
function readPriceList(file: string): PriceList {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(VARIABLE, 'a readable price list file', file);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(VARIABLE, 'a JSON price list', file);
  }
  return parsePriceList(parsed);
}

export function parsePriceList(parsed: unknown): PriceList {
  const root = record(parsed, 'the price list');
  unknownKeys(root, ['meters', 'streaming_tiers'], 'the price list');
  const meters = { ...DEFAULT_PRICE_LIST.meters };
  for (const [meter, value] of Object.entries(record(root.meters ?? {}, 'meters'))) {
    const where = `meters.${meter}`;
    if (!(USAGE_METERS as readonly string[]).includes(meter) || TIER_PRICED.has(meter)) {
      throw new ConfigError(VARIABLE, `a meter priced per unit (${perUnitMeters().join(', ')})`, where);
    }
    const entry = record(value, where);
    unknownKeys(entry, ['cents', 'per'], where);
    meters[meter] = {
      cents: count(entry.cents, `${where}.cents`, 0),
      per: count(entry.per, `${where}.per`, 1),
    };
  }
  const streamingTiers = { ...DEFAULT_PRICE_LIST.streamingTiers };
  for (const [tier, value] of Object.entries(record(root.streaming_tiers ?? {}, 'streaming_tiers'))) {
    const where = `streaming_tiers.${tier}`;
    const entry = record(value, where);
    unknownKeys(entry, ['monthly_cents', 'included_storage_gb', 'overage_cents_per_gb_month'], where);
    streamingTiers[tier] = {
      monthlyCents: count(entry.monthly_cents, `${where}.monthly_cents`, 0),
      includedStorageGb: count(entry.included_storage_gb, `${where}.included_storage_gb`, 0),
      overageCentsPerGbMonth: count(
        entry.overage_cents_per_gb_month,
        `${where}.overage_cents_per_gb_month`,
        0,
      ),
    };
  }
  return { meters, streamingTiers };
}

function perUnitMeters(): string[] {
  return USAGE_METERS.filter((meter) => !TIER_PRICED.has(meter));
}

function record(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(VARIABLE, `an object at ${where}`, JSON.stringify(value) ?? 'nothing');
  }
  return value as Record<string, unknown>;
}

function unknownKeys(entry: Record<string, unknown>, known: readonly string[], where: string): void {
  const unknown = Object.keys(entry).find((key) => !known.includes(key));
  if (unknown !== undefined) {
    throw new ConfigError(VARIABLE, `only ${known.join(', ')} in ${where}`, unknown);
  }
}

function count(value: unknown, where: string, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new ConfigError(VARIABLE, `an integer from ${min} at ${where}`, JSON.stringify(value) ?? 'nothing');
  }
  return value;
}
