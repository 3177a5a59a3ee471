/**
 * The transforms stage of a sink's pipeline, between conversion and the sink's put: the chain of
 * single message transforms the connector's `transforms` key names, applied in order; a record it
 * answers null for is dropped. A connector that names none passes its records through unchanged.
 */
import type { ConnectRecord } from './connect-record.js';
import { ConnectException } from './connect-exceptions.js';
import { listOf } from './connector-plugins.js';

export type RecordTransform = (record: ConnectRecord) => ConnectRecord | null;

/** The class name the transforms stage reports its failures with when the chain names none. */
export const TRANSFORMS_CLASS = 'org.apache.kafka.connect.runtime.TransformationChain';

const identity: RecordTransform = (record) => record;

/** The connector's transform chain; fails the task's start when `transforms` names a chain this runtime cannot build. */
export function transformStageOf(config: Record<string, string>): RecordTransform {
  const names = listOf(config.transforms);
  if (names.length === 0) return identity;
  throw new ConnectException(
    `the transforms ${names.join(', ')} cannot run: this runtime applies no single message transforms`,
  );
}
