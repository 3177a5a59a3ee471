/** What the usage chart draws: one row per meter, its quantity and its cost for the period. */

export interface MeterUsage {
  meter: string;
  unit: string;
  quantity: number;
}

export interface CostLine {
  meter: string;
  amount_cents: number;
}

export interface MeterBar {
  meter: string;
  unit: string;
  quantity: number;
  amountCents: number;
  /** The bar's length as a share of the longest cost (0–1); all zero when nothing costs. */
  costShare: number;
  /** The quantity as a share of the largest quantity of the same unit (units are not comparable). */
  quantityShare: number;
}

/**
 * Joins the period's usage and its cost lines by meter: every meter used or charged appears once,
 * its cost the sum of its lines, ordered by cost then name.
 */
export function meterBars(meters: readonly MeterUsage[], lines: readonly CostLine[]): MeterBar[] {
  const byMeter = new Map<string, { unit: string; quantity: number; amountCents: number }>();
  for (const meter of meters) {
    const entry = byMeter.get(meter.meter) ?? { unit: meter.unit, quantity: 0, amountCents: 0 };
    entry.quantity += meter.quantity;
    byMeter.set(meter.meter, entry);
  }
  for (const line of lines) {
    const entry = byMeter.get(line.meter) ?? { unit: '', quantity: 0, amountCents: 0 };
    entry.amountCents += line.amount_cents;
    byMeter.set(line.meter, entry);
  }
  const maxCost = Math.max(0, ...[...byMeter.values()].map((entry) => entry.amountCents));
  const maxQuantityByUnit = new Map<string, number>();
  for (const entry of byMeter.values()) {
    maxQuantityByUnit.set(entry.unit, Math.max(maxQuantityByUnit.get(entry.unit) ?? 0, entry.quantity));
  }
  return [...byMeter.entries()]
    .map(([meter, entry]) => {
      const maxQuantity = maxQuantityByUnit.get(entry.unit) ?? 0;
      return {
        meter,
        unit: entry.unit,
        quantity: entry.quantity,
        amountCents: entry.amountCents,
        costShare: maxCost > 0 ? entry.amountCents / maxCost : 0,
        quantityShare: maxQuantity > 0 ? entry.quantity / maxQuantity : 0,
      };
    })
    .sort((a, b) => b.amountCents - a.amountCents || a.meter.localeCompare(b.meter));
}

const DOLLARS = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** Integer cents as dollars: `1234` → `$12.34`. */
export function dollars(cents: number): string {
  return DOLLARS.format(cents / 100);
}
