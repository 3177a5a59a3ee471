import type { CleanupPolicy, StreamingLimits } from '../../runtime.js';
import { ErrorCode } from './errors.js';

/** Kafka's default retention (7 days), lowered to the tier's maximum when that is shorter. */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
/** Kafka's default `max.message.bytes`: 1 MiB of records plus the batch overhead. */
export const MAX_MESSAGE_BYTES = 1024 * 1024 + 12;

/** A refusal with Kafka's error code and a message for the client. */
export interface Refusal {
  errorCode: number;
  message: string;
}

export function topicNameProblem(name: string): Refusal | undefined {
  if (!TOPIC_NAME.test(name) || name === '.' || name === '..') {
    return {
      errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION,
      message: `Topic name "${name.slice(0, 300)}" is illegal: it must be 1 to 249 of [a-zA-Z0-9._-] and not "." or ".."`,
    };
  }
  return undefined;
}

export function defaultRetentionMs(limits: StreamingLimits): number {
  return limits.retentionMaxMs === null
    ? DEFAULT_RETENTION_MS
    : Math.min(DEFAULT_RETENTION_MS, limits.retentionMaxMs);
}

export function retentionProblem(retentionMs: number, limits: StreamingLimits): Refusal | undefined {
  if (!Number.isInteger(retentionMs) || retentionMs < -1) {
    return {
      errorCode: ErrorCode.INVALID_CONFIG,
      message: `retention.ms ${retentionMs} is not -1 or a positive integer`,
    };
  }
  if (limits.retentionMaxMs !== null && (retentionMs === -1 || retentionMs > limits.retentionMaxMs)) {
    return {
      errorCode: ErrorCode.INVALID_CONFIG,
      message: `retention.ms ${retentionMs} exceeds this tier's maximum of ${limits.retentionMaxMs} ms`,
    };
  }
  return undefined;
}

export function partitionLimitProblem(
  current: number,
  adding: number,
  limits: StreamingLimits,
  errorCode: number,
): Refusal | undefined {
  if (limits.partitions !== null && current + adding > limits.partitions) {
    return {
      errorCode,
      message: `${adding} more partitions would make ${current + adding}, over this tier's limit of ${limits.partitions} per cluster`,
    };
  }
  return undefined;
}

export function cleanupPolicyOf(value: string | null | undefined): CleanupPolicy | undefined {
  if (value === undefined || value === null) return 'delete';
  return value === 'delete' || value === 'compact' ? value : undefined;
}

/** A record batch over the topic's `max.message.bytes` is refused as Kafka refuses it. */
export function batchSizeProblem(batchBytes: number): Refusal | undefined {
  if (batchBytes <= MAX_MESSAGE_BYTES) return undefined;
  return {
    errorCode: ErrorCode.MESSAGE_TOO_LARGE,
    message: `The record batch of ${batchBytes} bytes is larger than max.message.bytes (${MAX_MESSAGE_BYTES})`,
  };
}
