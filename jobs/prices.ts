/**
 * Usage priced: billing periods, the spec's streaming tiers and the per-unit price list, line items
 * in integer cents.
 *
 * The rounding rule: a quantity counts to a thousandth of its unit, a price is a ratio of integers
 * (`cents` per `per` units), and each line item's amount is that product rounded half up to a
 * whole cent, once, in integer arithmetic. A total is the exact sum of its line items' amounts.
 * Monthly prices (a streaming tier, its storage overage) are prorated by the hour over the
 * period's own hours, so a cluster running all month costs exactly its monthly price.
 */
import type { PriceList, UnitPrice } from '../config/usage.js';
import type { ResourceUsage } from './usage-records.js';
import { HOUR_MS } from './usage-records.js';

/** A billing period: a UTC calendar month, from `start` (inclusive) to `end` (exclusive). */
export interface Period {
  start: Date;
  end: Date;
}

export function monthOf(moment: Date): Period {
  const year = moment.getUTCFullYear();
  const month = moment.getUTCMonth();
  return { start: new Date(Date.UTC(year, month, 1)), end: new Date(Date.UTC(year, month + 1, 1)) };
}

/** `current`, `previous` or a month `YYYY-MM`; undefined for anything else. */
export function parsePeriod(value: string, now: Date): Period | undefined {
  if (value === 'current') return monthOf(now);
  if (value === 'previous') {
    return monthOf(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)));
  }
  const month = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(value);
  if (!month) return undefined;
  return monthOf(new Date(Date.UTC(Number(month[1]), Number(month[2]) - 1, 1)));
}

export function hoursIn(period: Period): number {
  return (period.end.getTime() - period.start.getTime()) / HOUR_MS;
}

const MILLI = 1000n;

/** A quantity in thousandths of its unit, as an integer. */
function milliUnits(quantity: number): bigint {
  return BigInt(Math.round(quantity * 1000));
}

/** `quantity × cents / per`, rounded half up to a whole cent. */
export function amountCents(quantity: number, price: UnitPrice): number {
  const numerator = milliUnits(quantity) * BigInt(price.cents);
  const denominator = BigInt(price.per) * MILLI;
  return Number((2n * numerator + denominator) / (2n * denominator));
}

/** A cent price per unit, for display; the amount is computed from the ratio, not from this. */
function unitPriceCents(price: UnitPrice): number {
  return Number((price.cents / price.per).toFixed(6));
}

/** A quantity as shown: to the thousandth its price counts. */
export function shownQuantity(quantity: number): number {
  return Number(milliUnits(quantity)) / 1000;
}

export interface LineItem {
  resource_type: string;
  resource_id: string;
  description: string;
  meter: string;
  quantity: number;
  unit: string;
  unit_price_cents: number;
  amount_cents: number;
}

const METER_NAMES: Readonly<Record<string, string>> = {
  'database.storage_gb_hours': 'database storage',
  'database.memory_mb_hours': 'database memory',
  'streaming.cluster_hours': 'streaming cluster',
  'streaming.storage_gb_hours': 'streaming storage beyond the included',
  'streaming.transfer_cross_region_gb': 'cross-region transfer',
  'nfs.gb_hours': 'NFS storage',
  'backup.storage_gb_hours': 'backup storage',
  'vault.secret_hours': 'vault secrets',
};

/** What a meter's usage over a period costs: its price and the quantity that price applies to. */
interface Priced {
  price: UnitPrice | undefined;
  /** The quantity beyond what the price includes. */
  billable: number;
  /** Why there is no price, when there is none. */
  unpriced?: string;
}

/** Streaming storage a tier includes over the hours a cluster ran, in GB-hours. */
function includedStorage(usage: ResourceUsage, all: readonly ResourceUsage[], prices: PriceList): number {
  if (usage.meter !== 'streaming.storage_gb_hours') return 0;
  const tier = usage.plan === null ? undefined : prices.streamingTiers[usage.plan];
  const clusterHours = all
    .filter((other) => other.resourceId === usage.resourceId && other.meter === 'streaming.cluster_hours')
    .reduce((total, other) => total + other.quantity, 0);
  return (tier?.includedStorageGb ?? 0) * clusterHours;
}

function priced(
  usage: ResourceUsage,
  all: readonly ResourceUsage[],
  prices: PriceList,
  period: Period,
): Priced {
  const billable = Math.max(0, usage.quantity - includedStorage(usage, all, prices));
  if (usage.meter === 'streaming.cluster_hours' || usage.meter === 'streaming.storage_gb_hours') {
    const tier = usage.plan === null ? undefined : prices.streamingTiers[usage.plan];
    if (!tier)
      return { price: undefined, billable, unpriced: `tier ${usage.plan ?? 'unknown'}: priced by contract` };
    const cents = usage.meter === 'streaming.cluster_hours' ? tier.monthlyCents : tier.overageCentsPerGbMonth;
    return { price: { cents, per: hoursIn(period) }, billable };
  }
  const price = prices.meters[usage.meter];
  return price ? { price, billable } : { price: undefined, billable, unpriced: 'not in the price list' };
}

/** The meters of a period, each with what its prices include and what is billed. */
export function meterTotals(
  usage: readonly ResourceUsage[],
  prices: PriceList,
): { meter: string; unit: string; quantity: number; included: number; billable: number }[] {
  const totals = new Map<string, { meter: string; unit: string; quantity: number; included: number }>();
  for (const entry of usage) {
    const total = totals.get(entry.meter) ?? {
      meter: entry.meter,
      unit: entry.unit,
      quantity: 0,
      included: 0,
    };
    total.quantity += entry.quantity;
    total.included += Math.min(entry.quantity, includedStorage(entry, usage, prices));
    totals.set(entry.meter, total);
  }
  return [...totals.values()]
    .sort((a, b) => a.meter.localeCompare(b.meter))
    .map((total) => ({
      meter: total.meter,
      unit: total.unit,
      quantity: shownQuantity(total.quantity),
      included: shownQuantity(total.included),
      billable: shownQuantity(total.quantity - total.included),
    }));
}

/** One line item per resource and meter with a billable quantity; amounts in whole cents. */
export function lineItems(usage: readonly ResourceUsage[], prices: PriceList, period: Period): LineItem[] {
  return usage.flatMap((entry) => {
    const { price, billable, unpriced } = priced(entry, usage, prices, period);
    if (billable <= 0) return [];
    const what = METER_NAMES[entry.meter] ?? entry.meter;
    return [
      {
        resource_type: entry.resourceType,
        resource_id: entry.resourceId,
        description: `${entry.resourceName}: ${what}${unpriced ? ` (${unpriced})` : ''}`,
        meter: entry.meter,
        quantity: shownQuantity(billable),
        unit: entry.unit,
        unit_price_cents: price ? unitPriceCents(price) : 0,
        amount_cents: price ? amountCents(billable, price) : 0,
      },
    ];
  });
}

export function totalCents(items: readonly LineItem[]): number {
  return items.reduce((total, item) => total + item.amount_cents, 0);
}
