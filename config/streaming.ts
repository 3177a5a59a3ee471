import { integer, type Env } from './env.js';

/** Event-streaming clusters: how often their controllers look at the brokers again. */
export interface StreamingConfig {
  /**
   * How often a cluster's state, usage and topics made over the Kafka protocol are read again
   * (`CLOUDPLANE_STREAMING_REFRESH_MS`, default 30 s).
   */
  refreshIntervalMs: number;
}

export function streamingConfig(env: Env): StreamingConfig {
  return {
    refreshIntervalMs: integer(env, 'CLOUDPLANE_STREAMING_REFRESH_MS', 30_000, 200, 3_600_000),
  };
}
