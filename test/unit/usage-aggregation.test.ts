import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config/env.js';
import { DEFAULT_PRICE_LIST, parsePriceList, usageConfig } from '../../config/usage.js';
import { amountCents, hoursIn, lineItems, meterTotals, parsePeriod, totalCents } from '../../jobs/prices.js';
import type { ResourceUsage } from '../../jobs/usage-records.js';

const NOW = new Date('2026-03-01T09:00:00Z');

describe('billing periods', () => {
  it.each([
    { value: 'current', start: '2026-03-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' },
    { value: 'previous', start: '2026-02-01T00:00:00.000Z', end: '2026-03-01T00:00:00.000Z' },
    { value: '2025-12', start: '2025-12-01T00:00:00.000Z', end: '2026-01-01T00:00:00.000Z' },
    { value: '2024-02', start: '2024-02-01T00:00:00.000Z', end: '2024-03-01T00:00:00.000Z' },
  ])('reads $value', ({ value, start, end }) => {
    const period = parsePeriod(value, NOW)!;
    expect({ start: period.start.toISOString(), end: period.end.toISOString() }).toEqual({ start, end });
  });

  it('goes back a year from January', () => {
    expect(parsePeriod('previous', new Date('2026-01-15T00:00:00Z'))!.start.toISOString()).toBe(
      '2025-12-01T00:00:00.000Z',
    );
  });

  it.each(['', 'last', '2026-13', '2026-00', '2026-3', '26-03', '2026-03-01', ' current'])(
    'refuses %j',
    (value) => {
      expect(parsePeriod(value, NOW)).toBeUndefined();
    },
  );

  it.each([
    { month: '2026-02', hours: 672 },
    { month: '2024-02', hours: 696 },
    { month: '2026-03', hours: 744 },
    { month: '2026-04', hours: 720 },
  ])('counts $hours hours in $month', ({ month, hours }) => {
    expect(hoursIn(parsePeriod(month, NOW)!)).toBe(hours);
  });
});

describe('amounts in cents', () => {
  it.each([
    { quantity: 0, cents: 20, per: 730, amount: 0 },
    { quantity: 730, cents: 20, per: 730, amount: 20 },
    // 18.25 GB-hours at 20 cents per 730: 0.5 cent, rounded half up
    { quantity: 18.25, cents: 20, per: 730, amount: 1 },
    { quantity: 18.249, cents: 20, per: 730, amount: 0 },
    { quantity: 12.5, cents: 2, per: 1, amount: 25 },
    // a thousandth of a unit is what counts: 0.0004 is nothing
    { quantity: 0.0004, cents: 2, per: 1, amount: 0 },
    { quantity: 0.25, cents: 2, per: 1, amount: 1 },
    { quantity: 0.249, cents: 2, per: 1, amount: 0 },
    // floats that are not exact in binary still round as decimals would
    { quantity: 0.1 + 0.2, cents: 5, per: 1, amount: 2 },
    { quantity: 1e9, cents: 500, per: 747_520, amount: 668_878 },
  ])('$quantity units at $cents/$per cents: $amount', ({ quantity, cents, per, amount }) => {
    expect(amountCents(quantity, { cents, per })).toBe(amount);
  });
});

function usage(entry: Partial<ResourceUsage> & Pick<ResourceUsage, 'meter' | 'quantity'>): ResourceUsage {
  return {
    resourceType: 'streaming_cluster',
    resourceId: 'esc_1',
    resourceName: 'events',
    unit: 'hour',
    plan: 'starter',
    ...entry,
  };
}

describe('streaming tiers, prorated by the hour', () => {
  const march = parsePeriod('2026-03', NOW)!;

  it('costs exactly the monthly price for a whole month', () => {
    const items = lineItems(
      [usage({ meter: 'streaming.cluster_hours', quantity: 744 })],
      DEFAULT_PRICE_LIST,
      march,
    );
    expect(items).toEqual([
      expect.objectContaining({ meter: 'streaming.cluster_hours', quantity: 744, amount_cents: 2900 }),
    ]);
  });

  it.each([
    { tier: 'starter', hours: 24, amount: 94 }, // 2900 × 24 / 744 = 93.548…
    { tier: 'starter', hours: 372, amount: 1450 },
    { tier: 'pro', hours: 24, amount: 319 }, // 9900 × 24 / 744 = 319.35…
    { tier: 'pro', hours: 1, amount: 13 }, // 13.3…
  ])('prorates $tier over $hours hours to $amount cents', ({ tier, hours, amount }) => {
    const [item] = lineItems(
      [usage({ meter: 'streaming.cluster_hours', quantity: hours, plan: tier })],
      DEFAULT_PRICE_LIST,
      march,
    );
    expect(item!.amount_cents).toBe(amount);
  });

  it('bills only the storage beyond what the tier includes over the hours the cluster ran', () => {
    // 24 hours at 25 GB: 600 GB-hours, 240 included (10 GB × 24 h), 360 billed at 10 cents per GB-month
    const entries = [
      usage({ meter: 'streaming.cluster_hours', quantity: 24 }),
      usage({ meter: 'streaming.storage_gb_hours', unit: 'GB-hour', quantity: 600 }),
      usage({ meter: 'streaming.transfer_cross_region_gb', unit: 'GB', quantity: 50 }),
    ];
    const items = lineItems(entries, DEFAULT_PRICE_LIST, march);
    expect(items.map(({ meter, quantity, amount_cents }) => ({ meter, quantity, amount_cents }))).toEqual([
      { meter: 'streaming.cluster_hours', quantity: 24, amount_cents: 94 },
      { meter: 'streaming.storage_gb_hours', quantity: 360, amount_cents: 5 }, // 360 × 10 / 744 = 4.84
      { meter: 'streaming.transfer_cross_region_gb', quantity: 50, amount_cents: 100 },
    ]);
    expect(totalCents(items)).toBe(199);
    expect(meterTotals(entries, DEFAULT_PRICE_LIST)).toContainEqual({
      meter: 'streaming.storage_gb_hours',
      unit: 'GB-hour',
      quantity: 600,
      included: 240,
      billable: 360,
    });
  });

  it('has no line for storage within the tier', () => {
    const items = lineItems(
      [
        usage({ meter: 'streaming.cluster_hours', quantity: 10 }),
        usage({ meter: 'streaming.storage_gb_hours', unit: 'GB-hour', quantity: 100 }),
      ],
      DEFAULT_PRICE_LIST,
      march,
    );
    expect(items.map((item) => item.meter)).toEqual(['streaming.cluster_hours']);
  });

  it('shows an enterprise cluster at no list price, saying why', () => {
    const [item] = lineItems(
      [usage({ meter: 'streaming.cluster_hours', quantity: 10, plan: 'enterprise' })],
      DEFAULT_PRICE_LIST,
      march,
    );
    expect(item).toMatchObject({
      amount_cents: 0,
      description: 'events: streaming cluster (tier enterprise: priced by contract)',
    });
  });
});

describe('the price list file', () => {
  it('keeps the defaults without a file', () => {
    expect(usageConfig({}).prices).toBe(DEFAULT_PRICE_LIST);
  });

  it('replaces the entries it names', () => {
    const prices = parsePriceList({
      meters: { 'nfs.gb_hours': { cents: 1, per: 10 } },
      streaming_tiers: {
        enterprise: { monthly_cents: 99_900, included_storage_gb: 1000, overage_cents_per_gb_month: 5 },
      },
    });
    expect(prices.meters['nfs.gb_hours']).toEqual({ cents: 1, per: 10 });
    expect(prices.meters['database.storage_gb_hours']).toEqual(
      DEFAULT_PRICE_LIST.meters['database.storage_gb_hours'],
    );
    expect(prices.streamingTiers.enterprise).toEqual({
      monthlyCents: 99_900,
      includedStorageGb: 1000,
      overageCentsPerGbMonth: 5,
    });
    expect(prices.streamingTiers.starter).toEqual(DEFAULT_PRICE_LIST.streamingTiers.starter);
  });

  it.each([
    { list: [], names: 'an object at the price list' },
    { list: { prices: {} }, names: '"prices"' },
    { list: { meters: { 'database.cpu_hours': { cents: 1, per: 1 } } }, names: 'meters.database.cpu_hours' },
    {
      list: { meters: { 'streaming.cluster_hours': { cents: 1, per: 1 } } },
      names: 'meters.streaming.cluster_hours',
    },
    { list: { meters: { 'nfs.gb_hours': { cents: 0.5, per: 1 } } }, names: 'meters.nfs.gb_hours.cents' },
    { list: { meters: { 'nfs.gb_hours': { cents: 1, per: 0 } } }, names: 'meters.nfs.gb_hours.per' },
    { list: { meters: { 'nfs.gb_hours': { cents: -1, per: 1 } } }, names: 'meters.nfs.gb_hours.cents' },
    { list: { meters: { 'nfs.gb_hours': { cents: 1 } } }, names: 'meters.nfs.gb_hours.per' },
    {
      list: { streaming_tiers: { pro: { monthly_cents: '99' } } },
      names: 'streaming_tiers.pro.monthly_cents',
    },
  ])('refuses an entry, naming it: $names', ({ list, names }) => {
    expect(() => parsePriceList(list)).toThrow(ConfigError);
    expect(() => parsePriceList(list)).toThrow(names);
  });

  it('reads and checks the file at start-up', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cp-prices-'));
    try {
      const file = path.join(dir, 'prices.json');
      fs.writeFileSync(file, JSON.stringify({ meters: { 'vault.secret_hours': { cents: 3, per: 100 } } }));
      expect(usageConfig({ CLOUDPLANE_PRICE_LIST: file }).prices.meters['vault.secret_hours']).toEqual({
        cents: 3,
        per: 100,
      });
      fs.writeFileSync(file, '{ not json');
      expect(() => usageConfig({ CLOUDPLANE_PRICE_LIST: file })).toThrow(
        'CLOUDPLANE_PRICE_LIST: expected a JSON price list',
      );
      expect(() => usageConfig({ CLOUDPLANE_PRICE_LIST: path.join(dir, 'absent.json') })).toThrow(
        'a readable price list file',
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
