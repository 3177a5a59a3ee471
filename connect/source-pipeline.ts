/**
 * A change-capture source's way for its records, as Kafka's WorkerSourceTask runs it: the
 * transforms first (a record they drop is not written), then the key and value converters. A
 * failure fails the task, its message naming the stage and the class as Kafka's does.
 */
import type { IHeaders } from 'kafkajs';
import type { SourceRecord } from './change-envelope.js';
import type { ConnectRecord } from './connect-record.js';
import { kafkaHeadersOf } from './kafka-headers.js';
import { ConnectException } from './connect-exceptions.js';
import { converterFor, type Converter } from './converters/index.js';
import type { ErrorStage } from './error-handling.js';
import {
  transformFailureOf,
  transformStageOf,
  TRANSFORMS_CLASS,
  type TransformChain,
} from './transform-stage.js';

/** A record as the producer sends it. */
export interface ProducedMessage {
  topic: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders;
}

async function stage<T>(
  name: ErrorStage,
  className: string,
  topic: string,
  run: () => Promise<T>,
  blame: (error: Error) => { className: string; error: Error } = (error) => ({ className, error }),
): Promise<T> {
  try {
    return await run();
  } catch (caught) {
    const failure = blame(caught instanceof Error ? caught : new Error(String(caught)));
    throw new ConnectException(
      `Executing stage '${name}' with class '${failure.className}' failed for a record of ${topic}`,
      { cause: failure.error },
    );
  }
}

/** A header's value as bytes: a string as it is, anything else as JSON. */
const headerBytes = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

export class SourcePipeline {
  private readonly keyConverter: Converter;
  private readonly valueConverter: Converter;
  private readonly transform: TransformChain;

  constructor(config: Record<string, string>) {
    this.keyConverter = converterFor(config, 'key');
    this.valueConverter = converterFor(config, 'value');
    this.transform = transformStageOf(config);
  }

  /** The messages the records become, in order; fewer when a transform drops some. */
  async messagesOf(records: readonly SourceRecord[]): Promise<ProducedMessage[]> {
    const messages: ProducedMessage[] = [];
    for (const source of records) {
      const record: ConnectRecord = {
        topic: source.topic,
        partition: null,
        timestamp: null,
        key: source.key,
        ...(source.keySchema ? { keySchema: source.keySchema } : {}),
        value: source.value,
        ...(source.valueSchema ? { valueSchema: source.valueSchema } : {}),
        headers: [],
      };
      const transformed = await stage(
        'TRANSFORMATION',
        TRANSFORMS_CLASS,
        source.topic,
        async () => this.transform(record),
        transformFailureOf,
      );
      if (!transformed) continue;
      const { topic } = transformed;
      const headers = kafkaHeadersOf(
        transformed.headers.map((header) => ({ key: header.key, value: headerBytes(header.value) })),
      );
      messages.push({
        topic,
        key: await stage('KEY_CONVERTER', this.keyConverter.className, topic, () =>
          this.keyConverter.fromConnectData(topic, transformed.keySchema, transformed.key),
        ),
        value: await stage('VALUE_CONVERTER', this.valueConverter.className, topic, () =>
          this.valueConverter.fromConnectData(topic, transformed.valueSchema, transformed.value),
        ),
        headers,
      });
    }
    return messages;
  }
}
