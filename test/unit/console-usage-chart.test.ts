/** The console's usage chart rows: meters joined with their cost lines, shares for the bars, dollars. */
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../accounts/roles.js';
import { API_KEY_SCOPES } from '../../console/src/scopes.js';
import { dollars, meterBars } from '../../console/src/usage-chart.js';

describe('meterBars', () => {
  it('joins usage and cost by meter, summing lines, most expensive first', () => {
    const bars = meterBars(
      [
        { meter: 'database.storage_gb_hours', unit: 'GB-hour', quantity: 240 },
        { meter: 'streaming.cluster_hours', unit: 'hour', quantity: 24 },
        { meter: 'vault.secret_hours', unit: 'hour', quantity: 48 },
      ],
      [
        { meter: 'streaming.cluster_hours', amount_cents: 96 },
        { meter: 'database.storage_gb_hours', amount_cents: 30 },
        { meter: 'database.storage_gb_hours', amount_cents: 18 },
      ],
    );
    expect(bars).toEqual([
      {
        meter: 'streaming.cluster_hours',
        unit: 'hour',
        quantity: 24,
        amountCents: 96,
        costShare: 1,
        quantityShare: 0.5,
      },
      {
        meter: 'database.storage_gb_hours',
        unit: 'GB-hour',
        quantity: 240,
        amountCents: 48,
        costShare: 0.5,
        quantityShare: 1,
      },
      {
        meter: 'vault.secret_hours',
        unit: 'hour',
        quantity: 48,
        amountCents: 0,
        costShare: 0,
        quantityShare: 1,
      },
    ]);
  });

  it('keeps a charged meter without usage, and draws no bar when nothing costs', () => {
    expect(meterBars([], [{ meter: 'backup.storage_gb_hours', amount_cents: 5 }])).toEqual([
      {
        meter: 'backup.storage_gb_hours',
        unit: '',
        quantity: 0,
        amountCents: 5,
        costShare: 1,
        quantityShare: 0,
      },
    ]);
    expect(meterBars([{ meter: 'nfs.gb_hours', unit: 'GB-hour', quantity: 0 }], [])).toEqual([
      { meter: 'nfs.gb_hours', unit: 'GB-hour', quantity: 0, amountCents: 0, costShare: 0, quantityShare: 0 },
    ]);
  });
});

describe('dollars', () => {
  it.each([
    [0, '$0.00'],
    [5, '$0.05'],
    [1234, '$12.34'],
    [123456789, '$1,234,567.89'],
  ])('shows %i cents as %s', (cents, shown) => {
    expect(dollars(cents)).toBe(shown);
  });
});

describe('the scopes the console offers for an API key', () => {
  it('are exactly the scopes the API accepts', () => {
    expect([...API_KEY_SCOPES]).toEqual([...SCOPES]);
  });
});
