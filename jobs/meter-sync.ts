/**
 * The daily meter sync: each organization's complete hourly usage (`usage_hourly`, provisional rows
 * left out) summed per (organization, meter, UTC day) and reported to a Stripe-compatible billing
 * API as one meter event (`POST /v1/billing/meter_events`), or, without a billing URL, appended to
 * the outbox file as one JSON line per event.
 *
 * - Customer: `payload[stripe_customer_id]` is the organization id (`org_…`, from the namespace the
 *   usage was recorded in); the provider's customers are created with that id.
 * - Value: the day's total in whole units of the meter, rounded half up (meters take whole numbers;
 *   a day loses at most half a unit per meter).
 * - Identifier: `<organization>/<meter>/<day>`. Usage that arrives after a day was sent goes out as
 *   a revision `…/<day>-r<N>` carrying the difference, so the provider's sum is the day's total.
 * - Timestamp: the day's start (unix seconds). The provider refuses events older than 35 days; those
 *   days are counted in `too_old` and never sent.
 * - Delivery: every event is recorded before it is sent and marked sent once taken, so a run that
 *   fails (the provider answered 4xx/5xx) leaves it waiting, and the next run sends it again with the
 *   same identifier and value, which the provider's dedup makes harmless.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { organizationOfNamespace } from '../accounts/organizations.js';
import type { BillingConfig } from '../config/billing.js';
import type { DataPlane } from '../data-plane/data-plane.js';
import type { MeterEventsTable } from '../data-plane/schema.js';
import type { Logger } from '../observability/logger.js';
import type { JobDefinition } from './job.js';

const JOB_NAME = 'meter-sync';
const DAY_MS = 24 * 60 * 60 * 1000;
/** How old an event the provider still takes. */
const PROVIDER_WINDOW_MS = 35 * DAY_MS;
/** Kept off the window's edge, so a day on it is not refused by a provider whose clock runs ahead. */
const WINDOW_MARGIN_MS = 60 * 60 * 1000;
const REQUEST_TIMEOUT_MS = 15_000;
/** How much of a provider's error message a run keeps. */
const MAX_REASON_LENGTH = 300;

export type MeterEvent = MeterEventsTable;

/** One day's total of one organization's meter, in whole units. */
export interface DayTotal {
  organization: string;
  meter: string;
  day: string;
  value: number;
}

/** What a run decided before sending anything. */
export interface MeterSyncPlan {
  /** New events, each the first of its day or a revision carrying what changed since. */
  events: MeterEvent[];
  /** Days already sent with the same total. */
  unchanged: number;
  /** Days with unsent usage older than the provider takes. */
  tooOld: DayTotal[];
  /** Days whose total fell below what was sent: a meter event cannot take usage back. */
  decreased: DayTotal[];
}

/** The provider refused an event or could not be reached; the message is the provider's reason. */
export class MeterSyncError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MeterSyncError';
  }
}

export const meterSync: JobDefinition = {
  name: JOB_NAME,
  schedule: '0 2 * * *',
  description: "Reports the previous UTC day's billable usage to the payment provider's meters",
  async run({ database, config, logger, now, signal }) {
    const moment = now();
    const today = dayStart(moment);
    const firstSendableDay = dayOf(
      new Date(moment.getTime() - PROVIDER_WINDOW_MS + WINDOW_MARGIN_MS + DAY_MS - 1),
    );
    const day = dayOf(new Date(today.getTime() - DAY_MS));

    const totals = await dayTotals(database, firstSendableDay, dayOf(today));
    const recorded = await recordedEvents(database, totals);
    const plan = planMeterEvents(totals, recorded, firstSendableDay);
    await database.kysely.transaction().execute(async (trx) => {
      for (const event of plan.events) await trx.insertInto('meter_events').values(event).execute();
    });
    for (const stale of plan.tooOld) {
      logger.warn({ ...stale }, 'usage older than the billing provider takes is not sent');
    }
    for (const lower of plan.decreased) {
      logger.warn({ ...lower }, 'a day already billed now totals less; the difference is not sent');
    }

    const expired = await dropExpiredWaiting(database, firstSendableDay, logger);
    const waiting = await database.kysely
      .selectFrom('meter_events')
      .selectAll()
      .where('sent_at', 'is', null)
      .orderBy('day')
      .orderBy('identifier')
      .execute();
    const sent = await deliver(waiting, config.billing, { database, now, signal, logger });

    return {
      day,
      sent: sent.length,
      skipped_existing: plan.unchanged,
      too_old: plan.tooOld.length + expired,
      revisions: sent.filter((event) => event.revision > 0).length,
      decreased: plan.decreased.length,
    };
  },
};

/**
 * The events a run sends, given each day's total and the events already recorded for those days:
 * a day never sent gets its first event, a day whose total grew gets a revision with the
 * difference, a day unchanged gets nothing. Days before `firstSendableDay` are only reported.
 */
export function planMeterEvents(
  totals: readonly DayTotal[],
  recorded: readonly MeterEvent[],
  firstSendableDay: string,
): MeterSyncPlan {
  const before = new Map<string, { value: number; revisions: number }>();
  for (const event of recorded) {
    const key = dayKey(event);
    const sofar = before.get(key) ?? { value: 0, revisions: 0 };
    before.set(key, {
      value: sofar.value + event.value,
      revisions: Math.max(sofar.revisions, event.revision + 1),
    });
  }
  const plan: MeterSyncPlan = { events: [], unchanged: 0, tooOld: [], decreased: [] };
  for (const total of totals) {
    const sofar = before.get(dayKey(total));
    const difference = total.value - (sofar?.value ?? 0);
    if (difference === 0) {
      if (sofar !== undefined) plan.unchanged += 1;
    } else if (total.day < firstSendableDay) {
      plan.tooOld.push({ ...total, value: difference });
    } else if (difference < 0) {
      plan.decreased.push({ ...total, value: difference });
    } else {
      const revision = sofar?.revisions ?? 0;
      plan.events.push({
        identifier: identifierOf(total, revision),
        organization: total.organization,
        meter: total.meter,
        day: total.day,
        value: difference,
        revision,
        sent_at: null,
      });
    }
  }
  return plan;
}

export function identifierOf(day: Omit<DayTotal, 'value'>, revision: number): string {
  const base = `${day.organization}/${day.meter}/${day.day}`;
  return revision === 0 ? base : `${base}-r${revision}`;
}

/** The provider's event name of a meter: its dots become underscores (`database_storage_gb_hours`). */
export function eventNameOf(meter: string): string {
  return meter.replaceAll('.', '_');
}

/**
 * Day totals from `firstSendableDay` up to (not including) `today`, and those of older days whose
 * hours were aggregated again since the last successful sync began (late usage, or a replay).
 */
async function dayTotals(database: DataPlane, firstSendableDay: string, today: string): Promise<DayTotal[]> {
  const recent = await sumByDay(database, `${firstSendableDay}T00:00:00.000Z`, `${today}T00:00:00.000Z`);
  const since = await lastSuccessfulRunStart(database);
  const touched = await database.kysely
    .selectFrom('usage_hourly')
    .select(sql<string>`substr(${sql.ref('hour')}, 1, 10)`.as('day'))
    .distinct()
    .where('provisional', '=', 0)
    .where('hour', '<', `${firstSendableDay}T00:00:00.000Z`)
    // Before the first successful sync every older day counts: '' sorts before any timestamp.
    .where('aggregated_at', '>=', since ?? '')
    .execute();
  const older: DayTotal[] = [];
  for (const { day } of touched) {
    const next = dayOf(new Date(Date.parse(`${day}T00:00:00.000Z`) + DAY_MS));
    older.push(...(await sumByDay(database, `${day}T00:00:00.000Z`, `${next}T00:00:00.000Z`)));
  }
  return [...older, ...recent];
}

async function sumByDay(database: DataPlane, from: string, to: string): Promise<DayTotal[]> {
  const day = sql<string>`substr(${sql.ref('hour')}, 1, 10)`;
  const rows = await database.kysely
    .selectFrom('usage_hourly')
    .select(['organization', 'meter', day.as('day'), sql<number>`sum(${sql.ref('quantity')})`.as('quantity')])
    .where('provisional', '=', 0)
    .where('hour', '>=', from)
    .where('hour', '<', to)
    .groupBy(['organization', 'meter', day])
    .execute();
  // Several namespaces never share an organization, but rows recorded under the organization id and
  // under its namespace would: summing after the mapping keeps one total per customer.
  const sums = new Map<string, DayTotal>();
  for (const row of rows) {
    const organization = organizationOfNamespace(row.organization) ?? row.organization;
    const key = dayKey({ organization, meter: row.meter, day: row.day });
    const total = sums.get(key) ?? { organization, meter: row.meter, day: row.day, value: 0 };
    total.value += Number(row.quantity);
    sums.set(key, total);
  }
  return [...sums.values()]
    .map((total) => ({ ...total, value: Math.round(total.value) }))
    .sort((a, b) => (a.day === b.day ? dayKey(a).localeCompare(dayKey(b)) : a.day.localeCompare(b.day)));
}

async function lastSuccessfulRunStart(database: DataPlane): Promise<string | undefined> {
  const row = await database.kysely
    .selectFrom('job_runs')
    .select('started_at')
    .where('job', '=', JOB_NAME)
    .where('outcome', '=', 'succeeded')
    .orderBy('started_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.started_at;
}

async function recordedEvents(database: DataPlane, totals: readonly DayTotal[]): Promise<MeterEvent[]> {
  if (totals.length === 0) return [];
  const days = [...new Set(totals.map((total) => total.day))];
  return database.kysely.selectFrom('meter_events').selectAll().where('day', 'in', days).execute();
}

/** Drops waiting events the provider would no longer take, returning how many. */
async function dropExpiredWaiting(
  database: DataPlane,
  firstSendableDay: string,
  logger: Logger,
): Promise<number> {
  const expired = await database.kysely
    .deleteFrom('meter_events')
    .where('sent_at', 'is', null)
    .where('day', '<', firstSendableDay)
    .returning(['identifier'])
    .execute();
  for (const { identifier } of expired) {
    logger.warn({ identifier }, 'a meter event that was never taken is now older than the provider takes');
  }
  return expired.length;
}

interface Delivery {
  database: DataPlane;
  now: () => Date;
  signal: AbortSignal;
  logger: Logger;
}

/** Sends the waiting events in order, marking each sent once taken; stops at the first refusal. */
async function deliver(
  waiting: readonly MeterEvent[],
  billing: BillingConfig,
  { database, now, signal, logger }: Delivery,
): Promise<MeterEvent[]> {
  if (waiting.length === 0) return [];
  const markSent = (events: readonly MeterEvent[]) =>
    database.kysely
      .updateTable('meter_events')
      .set({ sent_at: now().toISOString() })
      .where(
        'identifier',
        'in',
        events.map((event) => event.identifier),
      )
      .execute();

  if (billing.url === undefined) {
    await fs.mkdir(path.dirname(billing.outboxFile), { recursive: true });
    await fs.appendFile(
      billing.outboxFile,
      waiting.map((event) => `${JSON.stringify(wireEvent(event))}\n`).join(''),
    );
    await markSent(waiting);
    logger.info({ events: waiting.length, file: billing.outboxFile }, 'meter events written to the outbox');
    return [...waiting];
  }

  const sent: MeterEvent[] = [];
  for (const event of waiting) {
    signal.throwIfAborted();
    await postMeterEvent(billing.url, billing.apiKey ?? '', event, signal);
    await markSent([event]);
    sent.push(event);
  }
  logger.info({ events: sent.length }, 'meter events sent to the billing provider');
  return sent;
}

/** The event as the provider takes it; the outbox holds the same fields. */
function wireEvent(event: MeterEvent) {
  return {
    event_name: eventNameOf(event.meter),
    identifier: event.identifier,
    timestamp: Date.parse(`${event.day}T00:00:00.000Z`) / 1000,
    payload: { stripe_customer_id: event.organization, value: String(event.value) },
  };
}

async function postMeterEvent(
  url: string,
  apiKey: string,
  event: MeterEvent,
  signal: AbortSignal,
): Promise<void> {
  const wire = wireEvent(event);
  const form = new URLSearchParams({
    event_name: wire.event_name,
    identifier: wire.identifier,
    timestamp: String(wire.timestamp),
    'payload[stripe_customer_id]': wire.payload.stripe_customer_id,
    'payload[value]': wire.payload.value,
  });
  let response: Response;
  try {
    response = await fetch(`${url}/v1/billing/meter_events`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form,
      signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
    });
  } catch (error) {
    const reason = error instanceof Error && error.name === 'TimeoutError' ? 'timed out' : 'unreachable';
    throw new MeterSyncError(`billing provider ${reason} sending meter event ${event.identifier}`);
  }
  if (response.ok) {
    await response.body?.cancel();
    return;
  }
  const reason = redact(await providerReason(response), apiKey);
  throw new MeterSyncError(
    `billing provider refused meter event ${event.identifier} (HTTP ${response.status}): ${reason}`,
  );
}

/** The provider's own words: Stripe answers `{error: {type, message, param}}`. */
async function providerReason(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  let reason = text.trim() || response.statusText || 'no reason given';
  try {
    const body = JSON.parse(text) as { error?: { type?: unknown; message?: unknown } };
    if (typeof body.error?.message === 'string') {
      reason =
        typeof body.error.type === 'string'
          ? `${body.error.type}: ${body.error.message}`
          : body.error.message;
    }
  } catch {
    // Not JSON: the text itself is the reason.
  }
  return reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH)}…` : reason;
}

/** A provider may echo the key it was given; it never reaches a log or a job record. */
function redact(reason: string, apiKey: string): string {
  return apiKey === '' ? reason : reason.replaceAll(apiKey, '[redacted]');
}

function dayKey(day: Omit<DayTotal, 'value'>): string {
  return `${day.organization}\u0000${day.meter}\u0000${day.day}`;
}

function dayStart(moment: Date): Date {
  return new Date(Math.floor(moment.getTime() / DAY_MS) * DAY_MS);
}

function dayOf(moment: Date): string {
  return moment.toISOString().slice(0, 10);
}
