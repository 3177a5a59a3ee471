/** Debezium's MySQL source (MySQL and MariaDB): its configuration keys; its task is `task.ts`. */
import { DEBEZIUM_VERSION } from '../../change-envelope.js';
import { binlogOffsetOf, isBinlogPosition, MySqlSourceTask, mySqlSourceSettingsOf } from './task.js';
import {
  CONNECTOR_COMMON,
  databaseKey,
  prefixProblems,
  TOPIC_PREFIX,
  isPattern,
  listOf,
  type ConnectorPlugin,
} from '../plugin.js';

/** The snapshot modes of the MySQL source: rows first then the binlog, the binlog from now, or all of it. */
export const MYSQL_SNAPSHOT_MODES = ['initial', 'no_data', 'never'] as const;

/** Debezium's MySQL source (MySQL and MariaDB), over the row-based binary log. */
export const MYSQL_SOURCE: ConnectorPlugin = {
  class: 'io.debezium.connector.mysql.MySqlConnector',
  type: 'source',
  version: DEBEZIUM_VERSION,
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
  sourceTask({ connector, config, offsets, produce, onFailed, now }) {
    const settings = mySqlSourceSettingsOf(connector, config);
    return new MySqlSourceTask(
      settings,
      {
        // As Debezium's, the offset belongs to the logical server: a new topic.prefix starts afresh.
        load: async () => {
          const stored = await offsets.load();
          return stored?.partition.server === settings.topicPrefix && isBinlogPosition(stored.offset)
            ? stored.offset
            : undefined;
        },
        commit: (position) =>
          offsets.commit({ partition: { server: settings.topicPrefix }, offset: binlogOffsetOf(position) }),
      },
      produce,
      onFailed,
      now,
    );
  },
};
