/**
 * Records as sinks take them: the key and value read as Kafka Connect's `JsonConverter` reads
 * them, schemaless JSON or the `{schema, payload}` envelope.
 */
export interface ConnectField {
  field: string;
  type: string;
  optional?: boolean;
}

/** A record's schema, when it came in an envelope. */
export interface ConnectSchema {
  type: string;
  fields?: ConnectField[];
}

export interface SinkRecord {
  topic: string;
  partition: number;
  offset: number;
  key: unknown;
  value: unknown;
  /** The value's schema, for a value sent in an envelope. */
  valueSchema?: ConnectSchema;
}

export interface ConvertedData {
  data: unknown;
  schema?: ConnectSchema;
}

function isEnvelope(value: unknown): value is { schema: ConnectSchema | null; payload: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length === 2 &&
    'schema' in value &&
    'payload' in value
  );
}

/** Reads JSON bytes as `JsonConverter` does; null stays null (a tombstone). Throws on bytes that are not JSON. */
export function convertJson(bytes: Buffer | null): ConvertedData {
  if (bytes === null || bytes.length === 0) return { data: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new Error(
      `Converting byte[] to Kafka Connect data failed due to serialization error: ${(error as Error).message}`,
    );
  }
  if (isEnvelope(parsed))
    return { data: parsed.payload, ...(parsed.schema ? { schema: parsed.schema } : {}) };
  return { data: parsed };
}

/** One consumed message as a sink record. */
export function sinkRecordOf(
  topic: string,
  partition: number,
  message: { offset: string; key: Buffer | null; value: Buffer | null },
): SinkRecord {
  const value = convertJson(message.value);
  return {
    topic,
    partition,
    offset: Number(message.offset),
    key: convertJson(message.key).data,
    value: value.data,
    ...(value.schema ? { valueSchema: value.schema } : {}),
  };
}

/** Where a sink's consumer may resume: the next offset of each topic-partition it has written. */
export type CommittableOffsets = { topic: string; partition: number; offset: number }[];

/** A sink task: opened once, given batches, closed. */
export interface SinkTask {
  start(): Promise<void>;
  /** Writes the records; answers the offsets now safe to commit. */
  put(records: SinkRecord[]): Promise<CommittableOffsets>;
  stop(): Promise<void>;
}

/** The next offset of each topic-partition in `records`. */
export function nextOffsetsOf(records: readonly SinkRecord[]): CommittableOffsets {
  const next = new Map<string, { topic: string; partition: number; offset: number }>();
  for (const record of records) {
    const id = `${record.topic}\u0000${record.partition}`;
    const known = next.get(id);
    if (!known || known.offset <= record.offset) {
      next.set(id, { topic: record.topic, partition: record.partition, offset: record.offset + 1 });
    }
  }
  return [...next.values()];
}
