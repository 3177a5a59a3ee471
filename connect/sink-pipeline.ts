/**
 * One sink task's way for the records it consumes, as Kafka's WorkerSinkTask runs it: each record's
 * key, value and headers converted, the transforms applied, then the batch put into the sink, every
 * stage under the connector's error handling. A batch the sink refuses for one record's sake is put
 * again record by record, so that record alone is reported (or fails the task, named) and the
 * others are written.
 */
import type { KafkaMessage } from 'kafkajs';
import type { Logger } from '../observability/logger.js';
import type { ConnectHeader, ConnectRecord } from './connect-record.js';
import { DataException } from './connect-exceptions.js';
import { headerListOf } from './kafka-headers.js';
import { converterFor, type Converter } from './converters/index.js';
import {
  deadLetterHeadersOf,
  describeFailure,
  ErrorHandler,
  errorHandlingSettingsOf,
  type ConsumedRecord,
  type ProcessingFailure,
} from './error-handling.js';
import {
  latestOffsetsOf,
  nextOffsetsOf,
  type CommittableOffsets,
  type SinkRecord,
  type SinkTask,
} from './sink-record.js';
import {
  transformFailureOf,
  transformStageOf,
  TRANSFORMS_CLASS,
  type TransformChain,
} from './transform-stage.js';

/** Kafka's default header converter, which reads each header as a string. */
const HEADER_CONVERTER_CLASS = 'org.apache.kafka.connect.storage.SimpleHeaderConverter';
const OPTIONAL_STRING = { type: 'string', optional: true } as const;

/** Writes a failed record to the dead-letter topic: its bytes as consumed, with `headers` added. */
export type DeadLetterWriter = (record: ConsumedRecord, headers: Record<string, string>) => Promise<void>;

export interface SinkPipelineDependencies {
  connector: string;
  taskId: number;
  config: Record<string, string>;
  sink: SinkTask;
  logger: Logger;
  /** Present when the connector names a dead-letter topic. */
  deadLetter?: DeadLetterWriter;
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** A consumed message as the error handling reports it. */
export function consumedRecordOf(topic: string, partition: number, message: KafkaMessage): ConsumedRecord {
  const timestamp = Number(message.timestamp);
  return {
    topic,
    partition,
    offset: Number(message.offset),
    timestamp: Number.isFinite(timestamp) && timestamp >= 0 ? timestamp : null,
    key: message.key ?? null,
    value: message.value ?? null,
    headers: headerListOf(message.headers),
  };
}

export class SinkPipeline {
  private readonly keyConverter: Converter;
  private readonly valueConverter: Converter;
  private readonly transform: TransformChain;
  private readonly errors: ErrorHandler;
  /**
   * For each topic-partition whose records the sink holds unwritten (a buffer not yet flushed),
   * the offset its committing must reach before the records dropped after them may be committed.
   */
  private readonly awaited = new Map<string, number>();

  constructor(private readonly deps: SinkPipelineDependencies) {
    this.keyConverter = converterFor(deps.config, 'key');
    this.valueConverter = converterFor(deps.config, 'value');
    this.transform = transformStageOf(deps.config);
    const settings = errorHandlingSettingsOf(deps.config);
    this.errors = new ErrorHandler(settings, {
      report: (failure) => this.report(failure),
      sleep: deps.sleep,
      now: deps.now,
    });
  }

  /** Converts, transforms and puts one batch of a topic-partition; answers the offsets now safe to commit. */
  async deliver(
    topic: string,
    partition: number,
    messages: readonly KafkaMessage[],
  ): Promise<CommittableOffsets> {
    const records: SinkRecord[] = [];
    const consumed = new Map<number, ConsumedRecord>();
    for (const message of messages) {
      const record = consumedRecordOf(topic, partition, message);
      consumed.set(record.offset, record);
      const converted = await this.converted(record);
      if (converted) records.push(converted);
    }
    const committable = await this.put(records, consumed);
    const id = `${topic}\u0000${partition}`;
    const lastPut = records.at(-1)?.offset;
    if (lastPut !== undefined) this.awaited.set(id, lastPut + 1);
    // Records dropped (filtered out, or failed and tolerated) are done with once the sink holds
    // nothing of the partition unwritten: the batch's end is then safe to commit, as Kafka's
    // consumer commits past the records a transform drops.
    const written = committable.find((next) => next.topic === topic && next.partition === partition);
    const awaited = this.awaited.get(id);
    if (awaited !== undefined && (written?.offset ?? -1) < awaited) return committable;
    this.awaited.delete(id);
    const end = { topic, partition, offset: Number(messages.at(-1)?.offset ?? -1) + 1 };
    if (end.offset <= 0) return committable;
    return latestOffsetsOf([...committable, end]);
  }

  /** Key, value and headers converted, then transformed: the record the sink takes, or none. */
  private async converted(consumed: ConsumedRecord): Promise<SinkRecord | undefined> {
    const { topic, partition, offset } = consumed;
    const key = await this.errors.execute('KEY_CONVERTER', this.keyConverter.className, consumed, () =>
      this.keyConverter.toConnectData(topic, consumed.key),
    );
    if (!key) return undefined;
    const value = await this.errors.execute('VALUE_CONVERTER', this.valueConverter.className, consumed, () =>
      this.valueConverter.toConnectData(topic, consumed.value),
    );
    if (!value) return undefined;
    const headers = await this.errors.execute(
      'HEADER_CONVERTER',
      HEADER_CONVERTER_CLASS,
      consumed,
      async (): Promise<ConnectHeader[]> =>
        consumed.headers.map((header) => ({
          key: header.key,
          value: header.value.toString('utf8'),
          schema: OPTIONAL_STRING,
        })),
    );
    if (!headers) return undefined;
    const record: ConnectRecord & { offset: number } = {
      topic,
      partition,
      offset,
      timestamp: consumed.timestamp,
      key: key.value.value,
      ...(key.value.schema ? { keySchema: key.value.schema } : {}),
      value: value.value.value,
      ...(value.value.schema ? { valueSchema: value.value.schema } : {}),
      headers: headers.value,
    };
    const transformed = await this.errors.execute(
      'TRANSFORMATION',
      TRANSFORMS_CLASS,
      consumed,
      async () => this.transform(record),
      transformFailureOf,
    );
    if (!transformed?.value) return undefined;
    const out = transformed.value;
    return {
      ...out,
      partition: out.partition ?? partition,
      offset,
      ...(out.topic === topic ? {} : { originalTopic: topic }),
      ...(out.partition === null || out.partition === partition ? {} : { originalPartition: partition }),
    };
  }

  private async put(
    records: SinkRecord[],
    consumed: Map<number, ConsumedRecord>,
  ): Promise<CommittableOffsets> {
    if (records.length === 0) return [];
    const { sink } = this.deps;
    try {
      return await sink.put(records);
    } catch (error) {
      if (!(error instanceof DataException)) throw error;
    }
    const committable: CommittableOffsets = [];
    for (const record of records) {
      const written = await this.errors.execute(
        'TASK_PUT',
        sink.className,
        consumed.get(record.offset)!,
        () => sink.put([record]),
      );
      committable.push(...(written?.value ?? nextOffsetsOf([record])));
    }
    return latestOffsetsOf(committable);
  }

  /** Logs the failure (`errors.log.enable`) and writes its record to the dead-letter topic. */
  private async report(failure: ProcessingFailure): Promise<void> {
    const { connector, taskId, deadLetter, logger } = this.deps;
    const settings = this.errors.settings;
    if (settings.log) {
      logger.error(
        { connector, task: taskId, stage: failure.stage, err: failure.error },
        `Error encountered in task ${connector}-${taskId}. ${describeFailure(failure, settings.logMessages)}`,
      );
    }
    if (deadLetter) {
      await deadLetter(
        failure.record,
        settings.contextHeaders ? deadLetterHeadersOf(failure, connector, taskId) : {},
      );
    }
  }
}
