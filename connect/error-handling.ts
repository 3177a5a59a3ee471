/**
 * Kafka Connect's error handling (KIP-298) for a sink task's records: each stage of a record's way
 * (header, key and value conversion, the transforms, the sink's put) runs under the connector's
 * `errors.*` settings. A retriable failure is tried again, the delay doubling from 300 ms up to
 * `errors.retry.delay.max.ms`, until `errors.retry.timeout` has passed; a failure that stays is
 * reported (logged with `errors.log.enable`, the original record written to
 * `errors.deadletterqueue.topic.name` with the `__connect.errors.*` headers when
 * `errors.deadletterqueue.context.headers.enable`) and then skipped with `errors.tolerance=all`,
 * or fails the task with `errors.tolerance=none` (the default), the trace naming the stage, the
 * class and the record.
 */
import { ConnectException, exceptionClassOf, RetriableException } from './connect-exceptions.js';
import type { HeaderBytes } from './kafka-headers.js';

/** The stages as Kafka names them (`org.apache.kafka.connect.runtime.errors.Stage`). */
export type ErrorStage =
  'HEADER_CONVERTER' | 'KEY_CONVERTER' | 'VALUE_CONVERTER' | 'TRANSFORMATION' | 'TASK_PUT';

export interface ErrorHandlingSettings {
  tolerance: 'none' | 'all';
  /** How long a retriable failure is tried again, in ms; 0 never, -1 without end. */
  retryTimeoutMs: number;
  retryDelayMaxMs: number;
  log: boolean;
  logMessages: boolean;
  deadLetterTopic: string | undefined;
  contextHeaders: boolean;
}

const isTrue = (value: string | undefined) => value?.trim().toLowerCase() === 'true';

export function errorHandlingSettingsOf(config: Record<string, string>): ErrorHandlingSettings {
  const topic = config['errors.deadletterqueue.topic.name']?.trim();
  return {
    tolerance: config['errors.tolerance'] === 'all' ? 'all' : 'none',
    retryTimeoutMs: Number(config['errors.retry.timeout'] || 0),
    retryDelayMaxMs: Number(config['errors.retry.delay.max.ms'] || 60_000),
    log: isTrue(config['errors.log.enable']),
    logMessages: isTrue(config['errors.log.include.messages']),
    deadLetterTopic: topic || undefined,
    contextHeaders: isTrue(config['errors.deadletterqueue.context.headers.enable']),
  };
}

/** What crosses keys: the dead-letter topic is never one the sink reads. */
export function errorHandlingProblems(
  config: Record<string, string>,
  topics: readonly string[],
): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  const topic = config['errors.deadletterqueue.topic.name']?.trim();
  if (topic && topics.includes(topic)) {
    problems['errors.deadletterqueue.topic.name'] = [
      `The DLQ topic '${topic}' may not be included in the list of topics ('topics=${topics.join(',')}') consumed by the connector`,
    ];
  }
  if (topic && !/^[a-zA-Z0-9._-]{1,249}$/.test(topic)) {
    problems['errors.deadletterqueue.topic.name'] = [
      ...(problems['errors.deadletterqueue.topic.name'] ?? []),
      'a topic name has 1 to 249 letters, digits, ".", "_" or "-"',
    ];
  }
  const factor = config['errors.deadletterqueue.topic.replication.factor'];
  if (factor !== undefined && /^-?\d+$/.test(factor.trim()) && Number(factor) < 1 && Number(factor) !== -1) {
    problems['errors.deadletterqueue.topic.replication.factor'] = [
      'the replication factor is at least 1, or -1 for the cluster\u2019s default',
    ];
  }
  for (const key of ['errors.retry.timeout', 'errors.retry.delay.max.ms']) {
    const value = config[key];
    if (
      value !== undefined &&
      /^-?\d+$/.test(value.trim()) &&
      Number(value) < (key === 'errors.retry.timeout' ? -1 : 0)
    ) {
      problems[key] = [
        `Invalid value ${value} for configuration ${key}: Value must be at least ${key === 'errors.retry.timeout' ? -1 : 0}`,
      ];
    }
  }
  return problems;
}

/** A record as it was consumed: its bytes, for the dead-letter topic, and where it was. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number | null;
  key: Buffer | null;
  value: Buffer | null;
  headers: HeaderBytes[];
}

/** A failure of one stage of one record, as the reporters see it. */
export interface ProcessingFailure {
  stage: ErrorStage;
  /** The class that ran the stage (the converter, the transform, the sink task). */
  className: string;
  record: ConsumedRecord;
  error: Error;
}

/** Kafka's description of a consumed record in its error messages. */
export function describeRecord(record: ConsumedRecord, withMessages = false): string {
  const position = `topic='${record.topic}', partition=${record.partition}, offset=${record.offset}, timestamp=${record.timestamp ?? -1}, timestampType=CreateTime`;
  if (!withMessages) return `{${position}}`;
  const text = (bytes: Buffer | null) => (bytes === null ? 'null' : bytes.toString('utf8'));
  const headers = record.headers.map((header) => `${header.key}=${header.value.toString('utf8')}`).join(', ');
  return `{${position}, key=${text(record.key)}, value=${text(record.value)}, headers=[${headers}]}`;
}

export const describeFailure = (failure: ProcessingFailure, withMessages = false) =>
  `Executing stage '${failure.stage}' with class '${failure.className}', where consumed record is ${describeRecord(failure.record, withMessages)}.`;

/** The stack trace of a failure as Kafka writes one: the class, the message, the frames, each cause after `Caused by:`. */
export function stackTraceOf(error: Error): string {
  const stack = error.stack ?? '';
  const frames = stack.includes('\n    at ') ? stack.slice(stack.indexOf('\n    at ')) : '';
  const own = `${exceptionClassOf(error)}: ${error.message}${frames}`;
  return error.cause instanceof Error ? `${own}\nCaused by: ${stackTraceOf(error.cause)}` : own;
}

/** The headers Kafka's DeadLetterQueueReporter adds with `errors.deadletterqueue.context.headers.enable`. */
export function deadLetterHeadersOf(
  failure: ProcessingFailure,
  connector: string,
  taskId: number,
): Record<string, string> {
  return {
    '__connect.errors.topic': failure.record.topic,
    '__connect.errors.partition': String(failure.record.partition),
    '__connect.errors.offset': String(failure.record.offset),
    '__connect.errors.connector.name': connector,
    '__connect.errors.task.id': String(taskId),
    '__connect.errors.stage': failure.stage,
    '__connect.errors.class.name': failure.className,
    '__connect.errors.exception.class.name': exceptionClassOf(failure.error),
    ...(failure.error.message ? { '__connect.errors.exception.message': failure.error.message } : {}),
    '__connect.errors.exception.stacktrace': stackTraceOf(failure.error),
  };
}

/** The failure that ends a task under `errors.tolerance=none`. */
export class ToleranceExceededException extends ConnectException {
  constructor(readonly failure: ProcessingFailure) {
    super(`Tolerance exceeded in error handler. ${describeFailure(failure)}`, { cause: failure.error });
  }
}

export const FIRST_RETRY_DELAY_MS = 300;

export interface ErrorHandlerDependencies {
  /** Logs, and writes to the dead-letter topic, a failure that stayed. */
  report(failure: ProcessingFailure): Promise<void>;
  sleep(ms: number): Promise<void>;
  now(): number;
}

/** Kafka's RetryWithToleranceOperator, for one task. */
export class ErrorHandler {
  constructor(
    readonly settings: ErrorHandlingSettings,
    private readonly deps: ErrorHandlerDependencies,
  ) {}

  /**
   * Runs one stage of one record: its result, or `undefined` when it failed and the failure is
   * tolerated (reported, the record skipped). Throws `ToleranceExceededException` otherwise.
   * `blame` names the class and the exception a failure is reported with, where the stage's own
   * class is not the one that failed (a transform of a chain).
   */
  async execute<T>(
    stage: ErrorStage,
    className: string,
    record: ConsumedRecord,
    operation: () => Promise<T>,
    blame: (error: Error) => { className: string; error: Error } = (error) => ({ className, error }),
  ): Promise<{ value: T } | undefined> {
    const deadline =
      this.settings.retryTimeoutMs < 0 ? Infinity : this.deps.now() + this.settings.retryTimeoutMs;
    let delay = FIRST_RETRY_DELAY_MS;
    for (;;) {
      try {
        return { value: await operation() };
      } catch (caught) {
        const error = caught instanceof Error ? caught : new Error(String(caught));
        const remaining = deadline - this.deps.now();
        if (error instanceof RetriableException && remaining > 0) {
          await this.deps.sleep(Math.min(delay, remaining, this.settings.retryDelayMaxMs));
          delay *= 2;
          continue;
        }
        const failure: ProcessingFailure = { stage, record, ...blame(error) };
        await this.deps.report(failure);
        if (this.settings.tolerance === 'all') return undefined;
        throw new ToleranceExceededException(failure);
      }
    }
  }
}
