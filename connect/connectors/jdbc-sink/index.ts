/** Confluent's JDBC sink: rows written into PostgreSQL or MySQL/MariaDB tables; its task is `task.ts`. */
import { JdbcSinkTask } from './task.js';
import { COMMON, listOf, type ConnectorPlugin } from '../plugin.js';

export const JDBC_SINK: ConnectorPlugin = {
  class: 'io.confluent.connect.jdbc.JdbcSinkConnector',
  type: 'sink',
  sinkTask: (config, onBroken) => new JdbcSinkTask(config, onBroken),
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
