/**
 * What a connector declares (its class, kind, version and configuration keys) and the keys every
 * connector shares: the common, error-handling and dead-letter ones. Each connector is a folder
 * beside this file, registered in `index.ts`.
 */
import type { ProduceRecords, SourceOffset, SourceTask } from '../change-envelope.js';
import type { SinkTask } from '../sink-record.js';

export type ConfigType = 'STRING' | 'INT' | 'SHORT' | 'LONG' | 'BOOLEAN' | 'LIST' | 'PASSWORD' | 'CLASS';

export interface ConfigDefinition {
  name: string;
  type: ConfigType;
  required: boolean;
  defaultValue?: string;
  /** The values it may take, when they are few. */
  allowed?: readonly string[];
  group: string;
  documentation: string;
}

/** What a source's task is given for one run of its connector. */
export interface SourceTaskRun {
  connector: { cluster: string; name: string };
  config: Record<string, string>;
  /** The connector's offset in the data plane, for a source whose database keeps no position for it. */
  offsets: {
    load(): Promise<SourceOffset | undefined>;
    commit(offset: SourceOffset<object>): Promise<void>;
  };
  /** Writes records to the brokers; resolves once every in-sync replica has them. */
  produce: ProduceRecords;
  /** Hears of a failure between records, such as a lost replication connection. */
  onFailed: (error: Error) => void;
  now: () => Date;
}

export interface ConnectorPlugin {
  class: string;
  type: 'sink' | 'source';
  version: string;
  definitions: readonly ConfigDefinition[];
  /** Problems that involve more than one key, by key. */
  crossCheck?(config: Record<string, string>): Record<string, string[]>;
  /** A sink's task, made for one run of the connector; `onBroken` hears of a connection lost between batches. */
  sinkTask?(config: Record<string, string>, onBroken: (error: Error) => void): SinkTask;
  /** A source's task, made for one run of the connector. */
  sourceTask?(run: SourceTaskRun): SourceTask;
  /**
   * Removes what a deleted source leaves in its database (a replication slot that keeps WAL);
   * rejects when the database cannot be reached.
   */
  forgetSource?(connector: { cluster: string; name: string }, config: Record<string, string>): Promise<void>;
}

export const errorsKey = (
  name: string,
  type: ConfigDefinition['type'],
  defaultValue: string,
  documentation: string,
  allowed?: readonly string[],
): ConfigDefinition => ({
  name,
  type,
  required: false,
  defaultValue,
  group: 'Error Handling',
  documentation,
  ...(allowed ? { allowed } : {}),
});

/** The `errors.*` keys of every connector. */
export const ERROR_HANDLING_DEFINITIONS: readonly ConfigDefinition[] = [
  errorsKey(
    'errors.retry.timeout',
    'LONG',
    '0',
    'How long a failed operation is retried, in milliseconds: 0 never, -1 without end.',
  ),
  errorsKey(
    'errors.retry.delay.max.ms',
    'LONG',
    '60000',
    'The longest delay between retries, in milliseconds.',
  ),
  errorsKey(
    'errors.tolerance',
    'STRING',
    'none',
    'none: an error fails the task; all: a record that fails is skipped.',
    ['none', 'all'],
  ),
  errorsKey(
    'errors.log.enable',
    'BOOLEAN',
    'false',
    'Whether each failed operation and its record are logged.',
  ),
  errorsKey(
    'errors.log.include.messages',
    'BOOLEAN',
    'false',
    'Whether the log names the record\u2019s key, value and headers.',
  ),
];

/** The dead-letter keys, which only sinks have. */
export const DEAD_LETTER_DEFINITIONS: readonly ConfigDefinition[] = [
  errorsKey(
    'errors.deadletterqueue.topic.name',
    'STRING',
    '',
    'The topic the records that failed are written to, as they were read; none when empty.',
  ),
  errorsKey(
    'errors.deadletterqueue.topic.replication.factor',
    'SHORT',
    '3',
    'The replication factor of the dead-letter topic when it is created; the cluster\u2019s replicas bound it.',
  ),
  errorsKey(
    'errors.deadletterqueue.context.headers.enable',
    'BOOLEAN',
    'false',
    'Whether dead-letter records carry the __connect.errors.* headers saying where and why they failed.',
  ),
];

export const CONNECTOR_COMMON: readonly ConfigDefinition[] = [
  { name: 'name', type: 'STRING', required: true, group: 'Common', documentation: 'Connector name.' },
  {
    name: 'connector.class',
    type: 'STRING',
    required: true,
    group: 'Common',
    documentation: 'The class of this connector.',
  },
  {
    name: 'tasks.max',
    type: 'INT',
    required: false,
    defaultValue: '1',
    group: 'Common',
    documentation:
      'Maximum number of tasks: a sink runs this many, sharing its topics\u2019 partitions; a source runs one.',
  },
  {
    name: 'key.converter',
    type: 'CLASS',
    required: false,
    group: 'Common',
    documentation:
      'The converter of record keys (configured by its key.converter.* keys); JsonConverter with schemas.enable=true when unset.',
  },
  {
    name: 'value.converter',
    type: 'CLASS',
    required: false,
    group: 'Common',
    documentation:
      'The converter of record values (configured by its value.converter.* keys); JsonConverter with schemas.enable=true when unset.',
  },
  ...ERROR_HANDLING_DEFINITIONS,
];

export const COMMON: readonly ConfigDefinition[] = [
  ...CONNECTOR_COMMON,
  {
    name: 'topics',
    type: 'LIST',
    required: true,
    group: 'Common',
    documentation: 'The topics to consume, comma-separated.',
  },
  ...DEAD_LETTER_DEFINITIONS,
];

export const databaseKey = (
  name: string,
  type: ConfigType,
  documentation: string,
  defaultValue?: string,
) => ({
  name: `database.${name}`,
  type,
  required: defaultValue === undefined,
  ...(defaultValue === undefined ? {} : { defaultValue }),
  group: 'Connection',
  documentation,
});

/** A `topic.prefix` Kafka can name topics with. */
export function prefixProblems(config: Record<string, string>): Record<string, string[]> {
  const prefix = config['topic.prefix'];
  return prefix !== undefined && prefix !== '' && !/^[a-zA-Z0-9._-]+$/.test(prefix)
    ? { 'topic.prefix': ['a topic prefix has only letters, digits, ".", "_" or "-"'] }
    : {};
}

export const TOPIC_PREFIX: ConfigDefinition = {
  name: 'topic.prefix',
  type: 'STRING',
  required: true,
  group: 'Connector',
  documentation: 'Topics are named <topic.prefix>.<database>.<table>.',
};

/** Whether a `*.include.list` entry is a regular expression. */
export function isPattern(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** A comma-separated list as Kafka reads one: trimmed, empty entries dropped. */
export function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}
