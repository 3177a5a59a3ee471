import path from 'node:path';
import { providerUrl, requiredWith, type Env } from './env.js';

/** Where the daily meter sync sends meter events. */
export interface BillingConfig {
  /**
   * A Stripe-compatible API (`CLOUDPLANE_BILLING_URL`, https; http only on a loopback host), without
   * a trailing slash; absent: events go to the outbox file.
   */
  url: string | undefined;
  /** Its secret key (`CLOUDPLANE_BILLING_API_KEY`), required with a URL. */
  apiKey: string | undefined;
  /** `<data dir>/outbox/meter-events.jsonl` when there is no URL. */
  outboxFile: string;
}

export function billingConfig(env: Env, place: { dataDir: string }): BillingConfig {
  const outboxFile = path.join(place.dataDir, 'outbox', 'meter-events.jsonl');
  if (!env.CLOUDPLANE_BILLING_URL?.trim()) {
    return { url: undefined, apiKey: env.CLOUDPLANE_BILLING_API_KEY?.trim() || undefined, outboxFile };
  }
  // The key travels to this URL with every event, so it is held to the provider rule.
  const url = providerUrl(env, 'CLOUDPLANE_BILLING_URL', '').replace(/\/+$/, '');
  const apiKey = requiredWith(env, 'CLOUDPLANE_BILLING_API_KEY', 'CLOUDPLANE_BILLING_URL');
  return { url, apiKey, outboxFile };
}
