/** Debezium's PostgreSQL source: its configuration keys; its task is `task.ts`. */
import { DEBEZIUM_VERSION } from '../../change-envelope.js';
import { CONNECTOR_COMMON, databaseKey, prefixProblems, type ConnectorPlugin } from '../plugin.js';
import {
  dropSlot,
  POSTGRES_DECODING_PLUGINS,
  PostgresSourceTask,
  postgresSourceSettingsOf,
  PUBLICATION_AUTOCREATE_MODES,
} from './task.js';

/**
 * The snapshot modes of the PostgreSQL source: the rows there when the slot is made, then its
 * changes (`initial`; Debezium's older `exported` is the same), a snapshot at every start
 * (`always`), or the changes only (`no_data`; Debezium's older `never`).
 */
export const POSTGRES_SNAPSHOT_MODES = ['initial', 'always', 'no_data', 'never', 'exported'] as const;

const POSTGRES_IDENTIFIER = /^[a-z0-9_]{1,63}$/;

/** Debezium's PostgreSQL source, over logical decoding with `pgoutput` (or `test_decoding`). */
export const POSTGRES_SOURCE: ConnectorPlugin = {
  class: 'io.debezium.connector.postgresql.PostgresConnector',
  type: 'source',
  version: DEBEZIUM_VERSION,
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
  // The replication slot keeps the source's position: it needs no offsets of the data plane.
  sourceTask: ({ connector, config, produce, onFailed, now }) =>
    new PostgresSourceTask(postgresSourceSettingsOf(connector, config), produce, onFailed, now),
  forgetSource: (connector, config) => dropSlot(postgresSourceSettingsOf(connector, config)),
};
