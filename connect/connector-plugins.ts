/**
 * The connectors this runtime implements, with the configuration keys of the connectors users
 * know (Confluent's JDBC, S3 and Elasticsearch sinks, Debezium's sources), and the validation Kafka Connect answers for
 * `PUT /connector-plugins/<class>/config/validate`.
 */
import { converterProblems } from './converters/index.js';
import { errorHandlingProblems } from './error-handling.js';
import { transformationConfigInfo } from './transforms/index.js';

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

export interface ConnectorPlugin {
  class: string;
  type: 'sink' | 'source';
  version: string;
  definitions: readonly ConfigDefinition[];
  /** Problems that involve more than one key, by key. */
  crossCheck?(config: Record<string, string>): Record<string, string[]>;
}

const errorsKey = (
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

const CONNECTOR_COMMON: readonly ConfigDefinition[] = [
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

const COMMON: readonly ConfigDefinition[] = [
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

export const JDBC_SINK: ConnectorPlugin = {
  class: 'io.confluent.connect.jdbc.JdbcSinkConnector',
  type: 'sink',
  version: '10.7.4',
  definitions: [
    ...COMMON,
    {
      name: 'connection.url',
      type: 'STRING',
      required: true,
      group: 'Connection',
      documentation:
        'JDBC URL of the database: jdbc:postgresql://host:port/database, jdbc:mysql://host:port/database or jdbc:mariadb://host:port/database.',
    },
    { name: 'connection.user', type: 'STRING', required: false, group: 'Connection', documentation: 'User.' },
    {
      name: 'connection.password',
      type: 'PASSWORD',
      required: false,
      group: 'Connection',
      documentation: 'Password.',
    },
    {
      name: 'table.name.format',
      type: 'STRING',
      required: false,
      defaultValue: '${topic}',
      group: 'Data Mapping',
      documentation: 'The table to write, where ${topic} stands for the record\u2019s topic.',
    },
    {
      name: 'insert.mode',
      type: 'STRING',
      required: false,
      defaultValue: 'insert',
      allowed: ['insert', 'upsert'],
      group: 'Writes',
      documentation: 'insert, or upsert on the primary key.',
    },
    {
      name: 'pk.mode',
      type: 'STRING',
      required: false,
      defaultValue: 'none',
      allowed: ['none', 'record_key', 'record_value'],
      group: 'Data Mapping',
      documentation: 'Where the primary key comes from.',
    },
    {
      name: 'pk.fields',
      type: 'LIST',
      required: false,
      defaultValue: '',
      group: 'Data Mapping',
      documentation: 'The primary key fields.',
    },
    {
      name: 'auto.create',
      type: 'BOOLEAN',
      required: false,
      defaultValue: 'false',
      group: 'DDL Support',
      documentation: 'Whether to create the table from the first record when it is missing.',
    },
  ],
  crossCheck(config) {
    const problems: Record<string, string[]> = {};
    const url = config['connection.url'];
    if (url !== undefined && !/^jdbc:(postgresql|mysql|mariadb):\/\/[^/]+\/[^?]+/.test(url)) {
      problems['connection.url'] = [
        'only jdbc:postgresql://, jdbc:mysql:// and jdbc:mariadb://host[:port]/database URLs are supported',
      ];
    }
    const mode = config['pk.mode'] ?? 'none';
    if (config['insert.mode'] === 'upsert' && mode === 'none') {
      problems['pk.mode'] = ['upsert needs a primary key: pk.mode record_key or record_value'];
    }
    if (mode === 'record_value' && listOf(config['pk.fields']).length === 0) {
      problems['pk.fields'] = ['pk.mode record_value needs pk.fields'];
    }
    return problems;
  },
};

export const S3_SINK: ConnectorPlugin = {
  class: 'io.confluent.connect.s3.S3SinkConnector',
  type: 'sink',
  version: '10.5.13',
  definitions: [
    ...COMMON,
    { name: 's3.bucket.name', type: 'STRING', required: true, group: 'S3', documentation: 'The bucket.' },
    {
      name: 's3.region',
      type: 'STRING',
      required: false,
      defaultValue: 'us-west-2',
      group: 'S3',
      documentation: 'The bucket\u2019s region.',
    },
    {
      name: 'store.url',
      type: 'STRING',
      required: false,
      group: 'S3',
      documentation: 'The endpoint of an S3-compatible store; AWS S3 of the region when unset.',
    },
    {
      name: 'aws.access.key.id',
      type: 'STRING',
      required: false,
      defaultValue: '',
      group: 'S3',
      documentation: 'Access key id.',
    },
    {
      name: 'aws.secret.access.key',
      type: 'PASSWORD',
      required: false,
      defaultValue: '',
      group: 'S3',
      documentation: 'Secret access key.',
    },
    {
      name: 'flush.size',
      type: 'INT',
      required: true,
      group: 'Connector',
      documentation: 'Records written per object.',
    },
    {
      name: 'topics.dir',
      type: 'STRING',
      required: false,
      defaultValue: 'topics',
      group: 'Connector',
      documentation: 'The top folder of the objects.',
    },
  ],
  crossCheck(config): Record<string, string[]> {
    const url = config['store.url'];
    if (url === undefined || url === '') return {};
    try {
      const parsed = new URL(url);
      return ['http:', 'https:'].includes(parsed.protocol) ? {} : { 'store.url': ['must be an http(s) URL'] };
    } catch {
      return { 'store.url': ['must be an http(s) URL'] };
    }
  },
};

const databaseKey = (name: string, type: ConfigType, documentation: string, defaultValue?: string) => ({
  name: `database.${name}`,
  type,
  required: defaultValue === undefined,
  ...(defaultValue === undefined ? {} : { defaultValue }),
  group: 'Connection',
  documentation,
});

/**
 * The snapshot modes of the PostgreSQL source: the rows there when the slot is made, then its
 * changes (`initial`; Debezium's older `exported` is the same), a snapshot at every start
 * (`always`), or the changes only (`no_data`; Debezium's older `never`).
 */
export const POSTGRES_SNAPSHOT_MODES = ['initial', 'always', 'no_data', 'never', 'exported'] as const;

/** How the source's publication is made when missing (Debezium's `publication.autocreate.mode`). */
export const PUBLICATION_AUTOCREATE_MODES = ['all_tables', 'filtered', 'disabled', 'no_tables'] as const;

/** The logical decoding plugins the PostgreSQL source reads. */
export const POSTGRES_DECODING_PLUGINS = ['pgoutput', 'test_decoding'] as const;

const POSTGRES_IDENTIFIER = /^[a-z0-9_]{1,63}$/;

/** Debezium's PostgreSQL source, over logical decoding with `pgoutput` (or `test_decoding`). */
export const POSTGRES_SOURCE: ConnectorPlugin = {
  class: 'io.debezium.connector.postgresql.PostgresConnector',
  type: 'source',
  version: '2.7.3.Final',
  definitions: [
    ...CONNECTOR_COMMON,
    databaseKey('hostname', 'STRING', 'Host of the PostgreSQL server.'),
    databaseKey('port', 'INT', 'Port of the PostgreSQL server.', '5432'),
    databaseKey('user', 'STRING', 'A user with the REPLICATION attribute.'),
    databaseKey('password', 'PASSWORD', 'Password.', ''),
    databaseKey('dbname', 'STRING', 'The database whose changes are captured.'),
    {
      name: 'topic.prefix',
      type: 'STRING',
      required: true,
      group: 'Connector',
      documentation: 'Topics are named <topic.prefix>.<schema>.<table>.',
    },
    {
      name: 'table.include.list',
      type: 'LIST',
      required: false,
      defaultValue: '',
      group: 'Filters',
      documentation: 'The tables captured, comma-separated schema.table; every table when empty.',
    },
    {
      name: 'slot.name',
      type: 'STRING',
      required: false,
      group: 'Replication',
      documentation: 'The logical replication slot; cloudplane_<digest of the connector> when unset.',
    },
    {
      name: 'plugin.name',
      type: 'STRING',
      required: false,
      defaultValue: 'pgoutput',
      allowed: POSTGRES_DECODING_PLUGINS,
      group: 'Replication',
      documentation:
        'The logical decoding plugin: pgoutput (PostgreSQL\u2019s own, through a publication) or test_decoding. A slot made before keeps its plugin when this is unset.',
    },
    {
      name: 'publication.name',
      type: 'STRING',
      required: false,
      defaultValue: 'dbz_publication',
      group: 'Replication',
      documentation: 'The publication pgoutput streams.',
    },
    {
      name: 'publication.autocreate.mode',
      type: 'STRING',
      required: false,
      defaultValue: 'all_tables',
      allowed: PUBLICATION_AUTOCREATE_MODES,
      group: 'Replication',
      documentation:
        'all_tables: a missing publication is made FOR ALL TABLES; filtered: made (or set) FOR TABLE the tables of table.include.list; no_tables: made empty; disabled: it must exist.',
    },
    {
      name: 'snapshot.mode',
      type: 'STRING',
      required: false,
      defaultValue: 'initial',
      allowed: POSTGRES_SNAPSHOT_MODES,
      group: 'Connector',
      documentation:
        'initial (or exported): the rows there when the slot is made (op r), then the changes from that point; always: a snapshot at every start; no_data (or never): the changes only.',
    },
  ],
  crossCheck(config): Record<string, string[]> {
    const problems = prefixProblems(config);
    for (const key of ['slot.name', 'publication.name']) {
      const value = config[key];
      if (value !== undefined && value !== '' && !POSTGRES_IDENTIFIER.test(value)) {
        problems[key] = [`a ${key.split('.')[0]} name has 1 to 63 lower-case letters, digits or underscores`];
      }
    }
    return problems;
  },
};

function prefixProblems(config: Record<string, string>): Record<string, string[]> {
  const prefix = config['topic.prefix'];
  return prefix !== undefined && prefix !== '' && !/^[a-zA-Z0-9._-]+$/.test(prefix)
    ? { 'topic.prefix': ['a topic prefix has only letters, digits, ".", "_" or "-"'] }
    : {};
}

const TOPIC_PREFIX: ConfigDefinition = {
  name: 'topic.prefix',
  type: 'STRING',
  required: true,
  group: 'Connector',
  documentation: 'Topics are named <topic.prefix>.<database>.<table>.',
};

/** The snapshot modes of the MySQL source: rows first then the binlog, the binlog from now, or all of it. */
export const MYSQL_SNAPSHOT_MODES = ['initial', 'no_data', 'never'] as const;

function isPattern(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** Debezium's MySQL source (MySQL and MariaDB), over the row-based binary log. */
export const MYSQL_SOURCE: ConnectorPlugin = {
  class: 'io.debezium.connector.mysql.MySqlConnector',
  type: 'source',
  version: '2.7.3.Final',
  definitions: [
    ...CONNECTOR_COMMON,
    databaseKey('hostname', 'STRING', 'Host of the MySQL or MariaDB server.'),
    databaseKey('port', 'INT', 'Port of the server.', '3306'),
    databaseKey('user', 'STRING', 'A user with REPLICATION SLAVE, REPLICATION CLIENT and SELECT.'),
    databaseKey('password', 'PASSWORD', 'Password.', ''),
    {
      ...databaseKey(
        'server.id',
        'INT',
        'The replica id the binlog is read as, unique among the server\u2019s replicas; one fixed per connector when unset.',
      ),
      required: false,
    },
    TOPIC_PREFIX,
    {
      name: 'database.include.list',
      type: 'LIST',
      required: false,
      defaultValue: '',
      group: 'Filters',
      documentation:
        'Regular expressions matching the databases captured, comma-separated; every database but the system ones when empty.',
    },
    {
      name: 'table.include.list',
      type: 'LIST',
      required: false,
      defaultValue: '',
      group: 'Filters',
      documentation:
        'Regular expressions matching the tables captured as database.table, comma-separated; every table when empty.',
    },
    {
      name: 'snapshot.mode',
      type: 'STRING',
      required: false,
      defaultValue: 'initial',
      allowed: MYSQL_SNAPSHOT_MODES,
      group: 'Connector',
      documentation:
        'initial: the existing rows (op r), then the binlog from there; no_data: the binlog from now; never: the binlog from its oldest file.',
    },
  ],
  crossCheck(config): Record<string, string[]> {
    const problems = prefixProblems(config);
    const id = config['database.server.id'];
    if (id !== undefined && /^-?\d+$/.test(id.trim()) && !(Number(id) >= 1 && Number(id) < 2 ** 32)) {
      problems['database.server.id'] = ['a server id is between 1 and 4294967295'];
    }
    for (const key of ['database.include.list', 'table.include.list']) {
      const invalid = listOf(config[key]).filter((pattern) => !isPattern(pattern));
      if (invalid.length > 0)
        problems[key] = invalid.map((pattern) => `${pattern} is not a regular expression`);
    }
    return problems;
  },
};

/** Debezium's MongoDB source: validated and kept; its task fails naming the server it lacks. */
export const MONGODB_SOURCE: ConnectorPlugin = {
  class: 'io.debezium.connector.mongodb.MongoDbConnector',
  type: 'source',
  version: '2.7.3.Final',
  definitions: [
    ...CONNECTOR_COMMON,
    {
      name: 'mongodb.connection.string',
      type: 'PASSWORD',
      required: true,
      group: 'Connection',
      documentation:
        'The replica set\u2019s connection string: mongodb://user:password@host:port/?replicaSet=rs0.',
    },
    { name: 'mongodb.user', type: 'STRING', required: false, group: 'Connection', documentation: 'User.' },
    {
      name: 'mongodb.password',
      type: 'PASSWORD',
      required: false,
      group: 'Connection',
      documentation: 'Password.',
    },
    TOPIC_PREFIX,
    {
      name: 'database.include.list',
      type: 'LIST',
      required: false,
      defaultValue: '',
      group: 'Filters',
      documentation: 'The databases captured, comma-separated; every database when empty.',
    },
    {
      name: 'collection.include.list',
      type: 'LIST',
      required: false,
      defaultValue: '',
      group: 'Filters',
      documentation: 'The collections captured, comma-separated database.collection; every one when empty.',
    },
    {
      name: 'capture.mode',
      type: 'STRING',
      required: false,
      defaultValue: 'change_streams_update_full',
      allowed: ['change_streams', 'change_streams_update_full'],
      group: 'Connector',
      documentation: 'Whether an update carries the whole document.',
    },
  ],
  crossCheck(config): Record<string, string[]> {
    const problems = prefixProblems(config);
    const url = config['mongodb.connection.string'];
    if (url !== undefined && url !== '' && !/^mongodb(\+srv)?:\/\/[^/?]+/.test(url)) {
      problems['mongodb.connection.string'] = ['must be a mongodb:// or mongodb+srv:// connection string'];
    }
    return problems;
  },
};

/** Confluent's Elasticsearch sink: validated and kept; its task fails naming the server it lacks. */
export const ELASTICSEARCH_SINK: ConnectorPlugin = {
  class: 'io.confluent.connect.elasticsearch.ElasticsearchSinkConnector',
  type: 'sink',
  version: '14.1.2',
  definitions: [
    ...COMMON,
    {
      name: 'connection.url',
      type: 'LIST',
      required: true,
      group: 'Connector',
      documentation: 'The Elasticsearch (or OpenSearch) URLs, comma-separated: http://host:9200.',
    },
    {
      name: 'connection.username',
      type: 'STRING',
      required: false,
      group: 'Security',
      documentation: 'User.',
    },
    {
      name: 'connection.password',
      type: 'PASSWORD',
      required: false,
      group: 'Security',
      documentation: 'Password.',
    },
    {
      name: 'key.ignore',
      type: 'BOOLEAN',
      required: false,
      defaultValue: 'false',
      group: 'Data Conversion',
      documentation: 'Whether document ids are topic+partition+offset rather than the record key.',
    },
    {
      name: 'schema.ignore',
      type: 'BOOLEAN',
      required: false,
      defaultValue: 'false',
      group: 'Data Conversion',
      documentation: 'Whether the index mapping is left to the server rather than made from the schema.',
    },
    {
      name: 'type.name',
      type: 'STRING',
      required: false,
      defaultValue: '_doc',
      group: 'Data Conversion',
      documentation: 'The document type, for servers older than Elasticsearch 7.',
    },
    {
      name: 'behavior.on.null.values',
      type: 'STRING',
      required: false,
      defaultValue: 'fail',
      allowed: ['ignore', 'delete', 'fail'],
      group: 'Data Conversion',
      documentation: 'What a tombstone does.',
    },
  ],
  crossCheck(config): Record<string, string[]> {
    const bad = listOf(config['connection.url']).filter((url) => {
      try {
        return !['http:', 'https:'].includes(new URL(url).protocol);
      } catch {
        return true;
      }
    });
    return bad.length > 0 ? { 'connection.url': bad.map((url) => `${url} is not an http(s) URL`) } : {};
  },
};

/** Every connector this runtime runs: exactly what `GET /connector-plugins` lists. */
export const CONNECTOR_PLUGINS: readonly ConnectorPlugin[] = [
  JDBC_SINK,
  S3_SINK,
  ELASTICSEARCH_SINK,
  POSTGRES_SOURCE,
  MYSQL_SOURCE,
  MONGODB_SOURCE,
];

/** The plugin a `connector.class` names: its full class name, its simple name, or that without `Connector`. */
export function pluginOf(className: string | undefined): ConnectorPlugin | undefined {
  if (!className) return undefined;
  return CONNECTOR_PLUGINS.find((plugin) => {
    const simple = plugin.class.slice(plugin.class.lastIndexOf('.') + 1);
    return [plugin.class, simple, simple.replace(/Connector$/, '')].includes(className);
  });
}

/** How many tasks a connector runs: a sink its `tasks.max`, a source one. */
export function taskCountOf(config: Record<string, string>): number {
  if (pluginOf(config['connector.class'])?.type !== 'sink') return 1;
  const max = Number(config['tasks.max'] ?? '1');
  return Number.isSafeInteger(max) && max > 1 ? max : 1;
}

/** A comma-separated list as Kafka reads one: trimmed, empty entries dropped. */
export function listOf(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** Keys whose values are secrets: never answered in clear, kept sealed. */
export function isSecretKey(plugin: ConnectorPlugin | undefined, key: string): boolean {
  const declared = plugin?.definitions.find((definition) => definition.name === key);
  return declared
    ? declared.type === 'PASSWORD'
    : // A registry converter's `basic.auth.user.info` is `user:password`.
      /(password|secret|\.key$|basic\.auth\.user\.info$)/i.test(key) && key !== 'aws.access.key.id';
}

function valueProblems(definition: ConfigDefinition, value: string | undefined): string[] {
  if (value === undefined || value === '') {
    return definition.required && definition.defaultValue === undefined
      ? [`Missing required configuration "${definition.name}" which has no default value.`]
      : [];
  }
  if (['INT', 'SHORT', 'LONG'].includes(definition.type) && !/^-?\d+$/.test(value.trim())) {
    return [
      `Invalid value ${value} for configuration ${definition.name}: Not a number of type ${definition.type}`,
    ];
  }
  if (definition.type === 'BOOLEAN' && !['true', 'false'].includes(value.trim().toLowerCase())) {
    return [
      `Invalid value ${value} for configuration ${definition.name}: Expected value to be either true or false`,
    ];
  }
  if (definition.allowed && !definition.allowed.includes(value)) {
    return [
      `Invalid value ${value} for configuration ${definition.name}: must be one of ${definition.allowed.join(', ')}`,
    ];
  }
  return [];
}

export interface ConfigValueInfo {
  definition: {
    name: string;
    type: ConfigType;
    required: boolean;
    default_value: string | null;
    importance: 'HIGH' | 'MEDIUM';
    documentation: string;
    group: string;
    width: 'NONE';
    display_name: string;
    dependents: string[];
    order: number;
  };
  value: {
    name: string;
    value: string | null;
    recommended_values: string[];
    errors: string[];
    visible: true;
  };
}

/** Kafka Connect's `ConfigInfos`: every key's definition and value, with the problems found. */
export interface ConfigInfos {
  name: string;
  error_count: number;
  groups: string[];
  configs: ConfigValueInfo[];
}

/** Validates a connector's configuration against its plugin, as `config/validate` answers. */
export function validateConnectorConfig(
  plugin: ConnectorPlugin,
  config: Record<string, string>,
): ConfigInfos {
  const cross = plugin.crossCheck?.(config) ?? {};
  const shared = {
    ...errorHandlingProblems(config, plugin.type === 'sink' ? listOf(config.topics) : []),
    // A converter's own keys are answered under the converter's key, each named.
    ...Object.fromEntries(
      Object.entries(converterProblems(config)).map(([key, messages]) => {
        const converterKey = key.startsWith('key.') ? 'key.converter' : 'value.converter';
        return [key, key === converterKey ? messages : messages.map((message) => `${key}: ${message}`)];
      }),
    ),
  };
  for (const [key, messages] of Object.entries(shared)) {
    const owner = plugin.definitions.some((definition) => definition.name === key)
      ? key
      : ['key.converter', 'value.converter'].find((converter) => key.startsWith(`${converter}.`));
    if (owner) cross[owner] = [...(cross[owner] ?? []), ...messages];
  }
  if (Number(config['tasks.max'] ?? '1') < 1) cross['tasks.max'] = ['tasks.max must be at least 1'];
  // Transforms and predicates add their keys, checked by their own definitions, after the connector's.
  const transforms = transformationConfigInfo(config);
  const definitions = [...plugin.definitions, ...transforms.definitions];
  const configs = definitions.map((definition, index): ConfigValueInfo => {
    const value = config[definition.name];
    const errors =
      index < plugin.definitions.length
        ? [...valueProblems(definition, value), ...(cross[definition.name] ?? [])]
        : (transforms.problems[definition.name] ?? []);
    return {
      definition: {
        name: definition.name,
        type: definition.type,
        required: definition.required,
        default_value: definition.defaultValue ?? null,
        importance: definition.required ? 'HIGH' : 'MEDIUM',
        documentation: definition.documentation,
        group: definition.group,
        width: 'NONE',
        display_name: definition.name,
        dependents: [],
        order: index + 1,
      },
      value: {
        name: definition.name,
        value: value === undefined ? null : definition.type === 'PASSWORD' ? '[hidden]' : value,
        recommended_values: [...(definition.allowed ?? [])],
        errors,
        visible: true,
      },
    };
  });
  return {
    name: plugin.class,
    error_count: configs.reduce((count, info) => count + info.value.errors.length, 0),
    groups: [...new Set(definitions.map((definition) => definition.group))],
    configs,
  };
}
