/**
 * The transforms stage of a task's pipeline (between conversion and the sink's put, or between a
 * source and its converters): the chain of single message transforms the connector's `transforms`
 * key names, applied in order; a record it answers null for is dropped. A connector that names
 * none passes its records through unchanged.
 */
import { TransformError, transformChain, type TransformChain } from './transforms/index.js';

export type { TransformChain };

/** The class a failure of the stage is reported with when no one transform is to blame. */
export const TRANSFORMS_CLASS = 'org.apache.kafka.connect.runtime.TransformationChain';

/**
 * The connector's transform chain. Throws `TransformChainConfigError` (every problem by key) for a
 * configuration the validation refuses, which fails the task's start.
 */
export function transformStageOf(config: Record<string, string>): TransformChain {
  return transformChain(config);
}

/**
 * What a failure of the stage is reported as, as Kafka's TransformationChain lets it through: the
 * failing transform's class, and the transform's own exception (the chain's wrapping only named it).
 */
export function transformFailureOf(error: Error): { className: string; error: Error } {
  return error instanceof TransformError
    ? { className: error.transformClass, error: error.cause }
    : { className: TRANSFORMS_CLASS, error };
}
